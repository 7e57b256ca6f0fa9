/**
 * npm run mcp:smoke: the official MCP clients against a running `npm run dev` (PORT, default 8787; or
 * MCP_URL): the v2 client negotiating the 2026-07-28 revision, then the v2 client on the 2025 handshake and
 * the v1 SDK client. Each lists the tools and resources, remembers a note, finds and reads it, reads the
 * memory, and forgets the note again. Exits non-zero on the first failure.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { devSecret } from "./lib/dev-secret";
import { signDevToken } from "./lib/token";

const url = new URL(process.env.MCP_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}/mcp`);
const userId = process.env.MCP_SMOKE_USER ?? `mcp-smoke-${Date.now()}`;
const token = signDevToken(devSecret(), userId, ["memory:read", "items:write"], { ttlSeconds: 3600 });
const requestInit = { headers: { authorization: `Bearer ${token}` } };

interface Result {
  isError?: boolean;
  content: unknown;
  structuredContent?: Record<string, unknown>;
}
interface AnyClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  close(): Promise<void>;
}

async function walk(label: string, client: AnyClient): Promise<void> {
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as Result;
    if (result.isError)
      throw new Error(`${name}: ${JSON.stringify(result.structuredContent ?? result.content)}`);
    return result.structuredContent ?? {};
  };
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const resources = (await client.listResources()).resources.map((r) => r.uri);
  const note = await call("remember", { text: `The smoke test (${label}) prefers green tea` });
  const found = (await call("search_items", { query: "smoke green tea", kinds: ["note"] })).items as {
    id: string;
  }[];
  if (!found.some((i) => i.id === note.id))
    throw new Error("search_items did not find the note just remembered");
  const read = await call("get_item", { id: String(note.id) });
  const memory = await call("get_memory");
  const [first] = (await client.readResource({ uri: "memory://me" })).contents;
  const resourceText =
    typeof first === "object" && first !== null && "text" in first ? String(first.text) : "";
  await call("forget_item", { id: String(note.id) });
  console.log(
    `[${label}] tools: ${tools.join(", ")}; resources: ${resources.join(", ")}\n` +
      `[${label}] remember → ${note.status} ${note.id}; search_items found it; get_item → ${read.kind} "${read.body}"\n` +
      `[${label}] get_memory → ${memory.status}${memory.retryAfter ? ` (retry in ${memory.retryAfter} s)` : ""}; ` +
      `memory://me → ${JSON.stringify(resourceText.slice(0, 60))}; forget_item → deleted`,
  );
  await client.close();
}

async function main(): Promise<void> {
  console.log(`MCP smoke test against ${url} as ${userId}`);
  for (const mode of ["auto", "legacy"] as const) {
    const client = new Client({ name: "mcp-smoke", version: "1.0.0" }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
    await walk(`v2 client, ${client.getNegotiatedProtocolVersion()}`, client);
  }
  const v1 = new V1Client({ name: "mcp-smoke-v1", version: "1.0.0" });
  const transport = new V1Transport(url, { requestInit });
  await v1.connect(transport);
  await walk(`v1 SDK, ${transport.protocolVersion}`, v1);
  console.log("MCP smoke test passed");
}

main().catch((err: unknown) => {
  console.error(`MCP smoke test failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
