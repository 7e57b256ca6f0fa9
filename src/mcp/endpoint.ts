/**
 * POST /mcp: the stateless Streamable HTTP endpoint (2026-07-28 per-request protocol, and the 2025 stateless
 * fallback for older clients). Browser origins not on MCP_ALLOWED_ORIGINS are refused (DNS rebinding), the
 * bearer token is checked like everywhere else (by the HTTP side), then a fresh server bound to the caller
 * answers the request. An older-era client's `initialize` is answered with a signed session id naming it
 * (session-id.ts), so its later calls are audited under its name.
 */
import { type AuthInfo, createMcpHandler } from "@modelcontextprotocol/server";
import type { EndpointContext, ProtocolEndpoint } from "../app/endpoint";
import type { Services } from "../app/services";
import { AppError } from "../domain/errors";
import { logLine } from "../log";
import { createMemoryMcpServer } from "./server";
import { clientOfSessionId, sessionIdFor } from "./session-id";

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
  async handle(request, { services, caller, requestId, token, resourceMetadataUrl }) {
    const userAgent = request.headers.get("user-agent");
    const message = await jsonRpcOf(request);
    const invalid = invalidParams(message);
    if (invalid) return invalid;
    const session = await clientOfSessionId(token, request.headers.get("mcp-session-id"));
    // Each tool, resource and prompt finishes its own audit events (tool-result.ts), with its own status.
    services.audit.handOver();
    const handler = createMcpHandler(
      () => createMemoryMcpServer({ services, caller, requestId, userAgent, sessionClient: session }),
      {
        onerror: (error) => logLine("warn", "mcp_error", { requestId, error: error.message }),
      },
    );
    const answer = await handler.fetch(withoutSessionId(request), {
      authInfo: authInfoOf({ caller, token, resourceMetadataUrl }),
    });
    const info = message?.method === "initialize" ? clientInfoOf(message.params) : null;
    if (!info || !answer.ok) return answer;
    const named = new Response(answer.body, answer);
    named.headers.set("Mcp-Session-Id", await sessionIdFor(token, info));
    return named;
  },
};

interface JsonRpcMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** The request's JSON-RPC message when it is one object (read from a copy); null otherwise. */
async function jsonRpcOf(request: Request): Promise<JsonRpcMessage | null> {
  if (request.method !== "POST") return null;
  try {
    const body: unknown = await request.clone().json();
    return typeof body === "object" && body !== null && !Array.isArray(body) ? body : null;
  } catch {
    return null;
  }
}

/** `resources/read` without a `uri` string: -32602, as JSON-RPC names bad params (not an internal error). */
function invalidParams(message: JsonRpcMessage | null): Response | null {
  if (message?.method !== "resources/read" || message.id === undefined) return null;
  const params = message.params as { uri?: unknown } | undefined;
  if (typeof params?.uri === "string") return null;
  return Response.json({
    jsonrpc: "2.0",
    id: message.id,
    error: { code: -32602, message: 'Invalid params: resources/read needs "uri", a string' },
  });
}

function clientInfoOf(params: unknown): { name: string; version: string } | null {
  const info = (params as { clientInfo?: { name?: unknown; version?: unknown } } | undefined)?.clientInfo;
  return typeof info?.name === "string" && typeof info.version === "string"
    ? { name: info.name, version: info.version }
    : null;
}

/** The stateless server keeps no sessions: the id (ours, verified above) is not its business. */
function withoutSessionId(request: Request): Request {
  if (!request.headers.has("mcp-session-id")) return request;
  const headers = new Headers(request.headers);
  headers.delete("mcp-session-id");
  return new Request(request, { headers });
}

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
