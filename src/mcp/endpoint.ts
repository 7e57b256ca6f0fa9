/**
 * POST /mcp: the stateless Streamable HTTP endpoint (2026-07-28 per-request protocol, and the 2025 stateless
 * fallback for older clients). Browser origins not on MCP_ALLOWED_ORIGINS are refused (DNS rebinding), the
 * bearer token is checked like everywhere else (by the HTTP side), then a fresh server bound to the caller
 * answers the request.
 */
import { type AuthInfo, createMcpHandler } from "@modelcontextprotocol/server";
import type { EndpointContext, ProtocolEndpoint } from "../app/endpoint";
import type { Services } from "../app/services";
import { AppError } from "../domain/errors";
import { createMemoryMcpServer } from "./server";

/** Browser pages may call /mcp only from MCP_ALLOWED_ORIGINS (default: none). */
const allowsOrigin = (origin: string, services: Services): boolean =>
  services.config.mcp.allowedOrigins.includes(origin);

export const mcpEndpoint: ProtocolEndpoint = {
  /** A request from a browser page carries Origin; only configured origins may call (default: none). */
  admit(request, services) {
    const origin = request.headers.get("origin");
    if (origin !== null && !allowsOrigin(origin, services)) {
      throw new AppError("forbidden", `Origin ${origin} is not allowed to call /mcp`);
    }
  },
  methods: ["POST"],
  allowsOrigin,
  handle(request, { services, caller, requestId, token, resourceMetadataUrl }) {
    const userAgent = request.headers.get("user-agent");
    // Each tool, resource and prompt finishes its own audit events (tool-result.ts), with its own status.
    services.audit.handOver();
    const handler = createMcpHandler(
      () => createMemoryMcpServer({ services, caller, requestId, userAgent }),
      {
        onerror: (error) =>
          console.warn(JSON.stringify({ level: "warn", msg: "mcp_error", requestId, error: error.message })),
      },
    );
    return handler.fetch(request, { authInfo: authInfoOf({ caller, token, resourceMetadataUrl }) });
  },
};

function authInfoOf({
  caller,
  token,
  resourceMetadataUrl,
}: Pick<EndpointContext, "caller" | "token" | "resourceMetadataUrl">): AuthInfo {
  return {
    token,
    clientId: caller.userId,
    scopes: [...caller.scopes],
    ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
  };
}
