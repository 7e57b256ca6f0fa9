/**
 * An MCP client of the older protocol era (an `initialize` handshake, then stateless calls) is audited under
 * its own name and version, carried by the signed session id the server answered `initialize` with; a
 * session id that is forged or altered names nobody. `resources/read` without a `uri` is -32602.
 */
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadResourceResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { newUserId, READ_WRITE, tokenFor } from "./support/auth";
import { call, json, warmUpWorker } from "./support/items";
import { MCP_URL, settledWorkerFetch } from "./support/mcp-clients";

beforeAll(warmUpWorker);
const clients: V1Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

const ADMIN = [...READ_WRITE, "admin"] as const;

async function olderEraClient(userId: string, info: { name: string; version: string }) {
  const token = await tokenFor(userId);
  const client = new V1Client(info);
  const fetch = (url: string | URL, init?: RequestInit) => settledWorkerFetch(new Request(url, init));
  const transport = new V1Transport(new URL(MCP_URL), {
    fetch,
    requestInit: { headers: { authorization: `Bearer ${token}`, "user-agent": "node" } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport, token };
}

async function clientsAudited(actor: string, count: number): Promise<(string | null)[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await call(newUserId("auditor"), "GET", `/audit?actor=${actor}&limit=100`, { scopes: ADMIN });
    const { events } = await json<{ events: { client: string | null }[] }>(res);
    if (events.length >= count || Date.now() > deadline) return events.map((e) => e.client);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("an MCP client of the older era", () => {
  it("is audited under the name and version it gave initialize, not its HTTP library", async () => {
    const userId = newUserId("older-era");
    const { client, transport } = await olderEraClient(userId, { name: "desk-agent", version: "4.2.0" });
    expect(transport.sessionId).toBeTruthy();
    expect((await client.callTool({ name: "get_memory", arguments: {} })).isError).toBeFalsy();
    expect(await clientsAudited(userId, 1)).toEqual(["desk-agent/4.2.0"]);
  });

  it("a session id altered by the client names nobody: the event carries the User-Agent's product", async () => {
    const userId = newUserId("older-era-forged");
    const { transport, token } = await olderEraClient(userId, { name: "honest", version: "1.0" });
    const sessionId = transport.sessionId!;
    const forged = sessionId.replace("honest", "forged");
    const res = await settledWorkerFetch(
      new Request(MCP_URL, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": transport.protocolVersion ?? "2025-06-18",
          "mcp-session-id": forged.length === sessionId.length ? `${forged.slice(0, -2)}xx` : forged,
          "user-agent": "node",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "get_memory", arguments: {} },
        }),
      }),
    );
    expect(res.status).toBe(200);
    expect(await clientsAudited(userId, 1)).toEqual(["node"]);
  });

  it("resources/read without a uri is -32602 invalid params, not an internal error", async () => {
    const { client } = await olderEraClient(newUserId("no-uri"), { name: "sloppy", version: "1.0" });
    const error = await client
      .request({ method: "resources/read", params: {} as { uri: string } }, ReadResourceResultSchema)
      .then(
        () => null,
        (e: { code?: number; message?: string }) => e,
      );
    expect(error?.code).toBe(-32602);
    expect(error?.message).not.toMatch(/invalid_type|"path"|expected/);
  });
});
