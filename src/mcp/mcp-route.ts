/**
 * POST /mcp: the stateless Streamable HTTP endpoint (2026-07-28 per-request protocol, and the 2025 stateless
 * fallback for older clients). Browser origins not on MCP_ALLOWED_ORIGINS are refused (DNS rebinding), the
 * bearer token is checked like everywhere else, then a fresh server bound to the caller answers the request.
 */
import { type AuthInfo, createMcpHandler } from "@modelcontextprotocol/server";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { AppError } from "../domain/errors";
import { authenticate } from "../http/auth";
import type { AppEnv } from "../http/context";
import { protectedResourceMetadataUrl } from "../http/protected-resource";
import { createMemoryMcpServer } from "./server";

export const mcpRoutes = new Hono<AppEnv>()
  .use(refuseForeignOrigins())
  .use(authenticate())
  .all("/", (c) => {
    const context = { deps: c.get("services"), caller: c.get("caller") };
    const requestId = c.get("requestId");
    const handler = createMcpHandler(() => createMemoryMcpServer(context), {
      onerror: (error) =>
        console.warn(JSON.stringify({ level: "warn", msg: "mcp_error", requestId, error: error.message })),
    });
    return handler.fetch(c.req.raw, { authInfo: authInfoOf(c) });
  });

/** A request from a browser page carries Origin; only configured origins may call (default: none). */
function refuseForeignOrigins(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !c.get("services").config.mcp.allowedOrigins.includes(origin)) {
      throw new AppError("forbidden", `Origin ${origin} is not allowed to call /mcp`);
    }
    await next();
  };
}

function authInfoOf(c: Context<AppEnv>): AuthInfo {
  const caller = c.get("caller");
  const token = c.req.header("authorization")?.replace(/^Bearer[ ]+/i, "") ?? "";
  const metadataUrl = protectedResourceMetadataUrl(c, c.get("services").config.auth);
  return {
    token,
    clientId: caller.userId,
    scopes: [...caller.scopes],
    ...(metadataUrl ? { resourceMetadataUrl: metadataUrl } : {}),
  };
}
