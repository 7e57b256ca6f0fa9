/**
 * RFC 9728 protected-resource metadata, offered only in JWKS mode (an authorization server, AUTH_ISSUER,
 * issues the tokens): OAuth-capable clients (MCP clients among them) learn from it where to log in. Two
 * resources: the MCP endpoint (`<origin>/mcp`) and the HTTP API (`<origin>`).
 */
import type { Context } from "hono";
import type { Scope } from "../app/caller";
import type { Auth } from "../config/config";
import type { AppEnv } from "./context";

export const PRM_PATH = "/.well-known/oauth-protected-resource";

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: Scope[];
  bearer_methods_supported: ["header"];
  resource_name: string;
}

/** The resource a request addresses: the MCP endpoint or the API as a whole. */
const resourcePath = (path: string) => (path === "/mcp" || path.startsWith("/mcp/") ? "/mcp" : "");

/** Where the metadata for this request's resource lives, or undefined when no authorization server is configured. */
export function protectedResourceMetadataUrl(c: Context<AppEnv>, auth: Auth): string | undefined {
  if (auth.kind !== "jwks") return undefined;
  return `${new URL(c.req.url).origin}${PRM_PATH}${resourcePath(c.req.path)}`;
}

export function protectedResourceMetadata(
  c: Context<AppEnv>,
  path: "" | "/mcp",
  scopes: readonly Scope[],
): ProtectedResourceMetadata | undefined {
  const auth = c.get("services").config.auth;
  if (auth.kind !== "jwks") return undefined;
  return {
    resource: `${new URL(c.req.url).origin}${path}`,
    authorization_servers: [auth.issuer],
    scopes_supported: [...scopes],
    bearer_methods_supported: ["header"],
    resource_name: path === "/mcp" ? "unified-memory MCP server" : "unified-memory API",
  };
}
