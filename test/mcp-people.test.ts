/** The people tools over MCP (find_people, get_person) and search_items by person: the same operations as HTTP. */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { newUserId, tokenFor } from "./support/auth";
import { ingest, item, warmUpWorker } from "./support/items";
import { connectClient, type McpTestClient } from "./support/mcp-clients";

const clients: McpTestClient[] = [];
const structured = (result: { structuredContent?: Record<string, unknown> }) =>
  result.structuredContent ?? {};
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

describe("MCP people tools", () => {
  it("find_people and get_person answer the caller's people; search_items takes a person", async () => {
    const userId = newUserId("mcp-people");
    const written = await ingest(userId, [
      item({ externalId: "m1", author: "Ada Lovelace <ada@acme.com>", participants: [] }),
      item({
        source: "slack",
        externalId: "s1",
        kind: "message",
        author: undefined,
        participants: [],
        people: [
          {
            role: "author",
            name: "Ada Lovelace",
            email: "ada@acme.com",
            handles: [{ kind: "slack", value: "T1/U7" }],
          },
        ],
      }),
      item({ externalId: "m2", author: "Carl <carl@acme.com>", participants: [] }),
    ]);
    const client = await connectClient("modern", { token: await tokenFor(userId) });
    clients.push(client);

    const found = await client.callTool("find_people", { query: "lovelace" });
    expect(found.isError).toBeFalsy();
    const people = found.structuredContent?.people as { id: string; name: string; items: number }[];
    expect(people.map((p) => [p.name, p.items])).toEqual([["Ada Lovelace", 2]]);

    const person = await client.callTool("get_person", { id: people[0]!.id });
    expect(person.isError).toBeFalsy();
    const identifiers = (structured(person).identifiers as { key: string; link: string }[]).map((i) => [
      i.key,
      i.link,
    ]);
    expect(identifiers).toEqual([
      ["email:ada@acme.com", "hard"],
      ["slack:T1/U7", "hard"],
    ]);

    const search = await client.callTool("search_items", { person: [people[0]!.id] });
    const ids = (structured(search).items as { id: string }[]).map((i) => i.id).sort();
    const idOf = (externalId: string) => written.find((w) => w.externalId === externalId)!.id;
    expect(ids).toEqual([idOf("m1"), idOf("s1")].sort());

    const unknown = await client.callTool("get_person", { id: "p_0123456789abcdef" });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toMatchObject({ error: { code: "not_found" } });
  });
});
