/**
 * The official MCP clients, connected to the worker inside the test pool: their Streamable HTTP transports
 * get a `fetch` that is the worker's own (and that waits for what the worker deferred, such as pokes to a
 * subject's agent, so tests see settled state).
 *
 * - `modern`: @modelcontextprotocol/client 2.x pinned to the 2026-07-28 revision (per-request envelope).
 * - `negotiated`: the same client with `auto` negotiation (probes with server/discover, then settles).
 * - `legacy`: the same client with its default 2025 `initialize` handshake, served by the stateless fallback.
 * - `v1`: @modelcontextprotocol/sdk 1.x, the client most agents ship today.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Env } from "../../src/env";
import worker from "../../src/index";

export const CLIENT_KINDS = ["modern", "negotiated", "legacy", "v1"] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export const MCP_URL = "http://local/mcp";

export type WorkerFetch = (request: Request) => Promise<Response>;

/** The worker's fetch, waiting for its deferred work. */
export const settledWorkerFetch: WorkerFetch = async (request) => {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
};

export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** What the tests use of a client, the same for both SDK generations. */
export interface McpTestClient {
  kind: ClientKind;
  protocolVersion: string | undefined;
  listTools(): Promise<{
    tools: { name: string; annotations?: Record<string, unknown>; inputSchema: unknown }[];
  }>;
  callTool(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(uri: string): Promise<{ contents: { uri: string; text?: string }[] }>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(
    name: string,
  ): Promise<{ messages: { role: string; content: { type: string; text?: string } }[] }>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  token: string;
  fetch?: WorkerFetch;
  headers?: Record<string, string>;
}

export async function connectClient(kind: ClientKind, options: ConnectOptions): Promise<McpTestClient> {
  const workerFetch = options.fetch ?? settledWorkerFetch;
  const fetch = (url: string | URL, init?: RequestInit) => workerFetch(new Request(url, init));
  const requestInit = { headers: { authorization: `Bearer ${options.token}`, ...options.headers } };
  const info = { name: `test-${kind}`, version: "1.0.0" };

  if (kind === "v1") {
    const client = new V1Client(info);
    const transport = new V1Transport(new URL(MCP_URL), { fetch, requestInit });
    await client.connect(transport);
    return {
      kind,
      protocolVersion: transport.protocolVersion,
      listTools: () => client.listTools(),
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
      listResources: () => client.listResources(),
      listResourceTemplates: () => client.listResourceTemplates(),
      readResource: (uri) => client.readResource({ uri }),
      getPrompt: (name) => client.getPrompt({ name }),
      listPrompts: () => client.listPrompts(),
      close: () => client.close(),
    };
  }

  const mode = kind === "modern" ? { pin: "2026-07-28" } : kind === "negotiated" ? "auto" : "legacy";
  const client = new Client(info, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch,
    requestInit,
    onInsufficientScope: "throw",
  });
  await client.connect(transport);
  return {
    kind,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools(),
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    listResources: () => client.listResources(),
    listResourceTemplates: () => client.listResourceTemplates(),
    readResource: (uri) => client.readResource({ uri }),
    getPrompt: (name) => client.getPrompt({ name }),
    listPrompts: () => client.listPrompts(),
    close: () => client.close(),
  };
}
