/**
 * Cross-origin calls from browser pages (CORS), off unless CORS_ALLOWED_ORIGINS names origins. For an
 * allowed origin a preflight (OPTIONS) is answered with the methods the path serves (the same table as the
 * 405s' Allow), and every answer carries Access-Control-Allow-Origin and the headers a client reads
 * (X-Request-Id, ETag, Retry-After, WWW-Authenticate, ...). Any other origin gets no CORS header, so its
 * browser keeps the answer from the page. A protocol endpoint keeps its own origin rule on top (/mcp:
 * MCP_ALLOWED_ORIGINS): both must allow an origin before its pages may call it.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { ProtocolEndpoint } from "../app/endpoint";
import type { AppEnv } from "./context";
import { allowedMethods, type RouteEntry } from "./method-not-allowed";

const EXPOSED_HEADERS = [
  "X-Request-Id",
  "ETag",
  "Retry-After",
  "WWW-Authenticate",
  "Allow",
  "Mcp-Session-Id",
  "Mcp-Protocol-Version",
];
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export function crossOrigin(
  routes: () => readonly RouteEntry[],
  endpoints: Record<string, ProtocolEndpoint>,
): MiddlewareHandler<AppEnv> {
  const allows = (origin: string, c: Parameters<MiddlewareHandler<AppEnv>>[0]) => {
    const services = c.get("services");
    if (!services.config.cors.allowedOrigins.includes(origin)) return false;
    const endpoint = endpoints[c.req.path];
    return endpoint?.allowsOrigin?.(origin, services) ?? true;
  };
  const methods = (path: string): readonly string[] =>
    endpoints[path]?.methods ?? allowedMethods(routes(), path);
  const handler = cors({
    origin: (origin, c) => (allows(origin, c) ? origin : null),
    allowMethods: (_origin, c) => [...methods(c.req.path)],
    // Request headers are echoed from the preflight (MCP clients send protocol headers of their own).
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (!origin || !allows(origin, c) || methods(c.req.path).length === 0) return next();
    return handler(c, next);
  };
}
