/**
 * Statements over MCP, for the caller's memory and a team's: get_memory with asOf, diff_memory, and
 * dismiss_statement (destructive, items:write), each the same operation as its HTTP route.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Statement } from "../src/domain/memory";
import { teamKey, userKey } from "../src/domain/workspaces";
import { newUserId, READ_WRITE, tokenFor } from "./support/auth";
import { item } from "./support/items";
import { connectClient, type McpTestClient, settledWorkerFetch } from "./support/mcp-clients";
import { clearAlarm, FakeGenerator, installAgent, seedMemory } from "./support/memory-agent";
import { registerMembersIn } from "./support/workspaces";

const subjects: string[] = [];
const clients: McpTestClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const key of subjects.splice(0)) await clearAlarm(key);
});

async function api(
  ws: string,
  user: string,
  method: string,
  path: string,
  body?: unknown,
  scopes: readonly string[] = READ_WRITE,
) {
  const headers = {
    authorization: `Bearer ${await tokenFor(user, scopes, { org_id: ws })}`,
    "content-type": "application/json",
  };
  return settledWorkerFetch(
    new Request(`http://local${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

async function client(ws: string, user: string, scopes: readonly string[] = READ_WRITE) {
  const c = await connectClient("modern", { token: await tokenFor(user, scopes, { org_id: ws }) });
  clients.push(c);
  return c;
}

const stated = (section: string, text: string, id: string, at: Date, ...itemIds: string[]): Statement => ({
  section,
  text,
  itemIds,
  id,
  firstStated: at.toISOString(),
});

/** Two versions of one memory (an hour apart) over three items: v2 drops one statement and adds one. */
async function twoVersions(kind: "user" | "team") {
  const ws = `mcp-stmt-${crypto.randomUUID().slice(0, 8)}`;
  const ada = newUserId("ada");
  const ben = newUserId("ben");
  await registerMembersIn(ws, ada, ben);
  for (const user of [ada, ben]) {
    subjects.push(userKey(ws, user));
    await installAgent(userKey(ws, user), new FakeGenerator());
  }
  const teamId = "kestrel";
  const key = kind === "user" ? userKey(ws, ada) : teamKey(ws, teamId);
  if (kind === "team") {
    subjects.push(key);
    await installAgent(key, new FakeGenerator());
    expect(
      (await api(ws, "root", "PUT", `/teams/${teamId}`, { name: "K", members: [ada, ben] }, ["admin"]))
        .status,
    ).toBe(201);
  }
  const shared = kind === "team" ? { sharedWith: [`team:${teamId}`] } : {};
  const res = await api(ws, ada, "POST", "/items", {
    items: [
      item({ externalId: "a", body: "Ada leads Kestrel.", ...shared }),
      item({ externalId: "b", body: "Ada reviews the ledger.", ...shared }),
      item({ externalId: "c", body: "Ada prefers async.", ...shared }),
    ],
  });
  const [a, b, c] = ((await res.json()) as { items: { id: string }[] }).items.map((i) => i.id);
  const t1 = new Date(Date.now() - 3 * 3600_000);
  const t2 = new Date(Date.now() - 3600_000);
  const leads = stated("Current projects", "Leads Kestrel", "s-leads", t1, a!);
  const v1 = await seedMemory(key, [leads, stated("Role", "Reviews the ledger", "s-reviews", t1, b!)], {
    generatedAt: t1,
  });
  const v2 = await seedMemory(key, [leads, stated("Style", "Prefers async", "s-async", t2, c!)], {
    generatedAt: t2,
  });
  return { ws, ada, ben, key, v1, v2, t1, t2, team: kind === "team" ? { team: teamId } : {} };
}

describe.each(["user", "team"] as const)("statements of a %s memory over MCP", (kind) => {
  it("get_memory with asOf answers the version current then, and no_memory_at before the first", async () => {
    const s = await twoVersions(kind);
    const c = await client(s.ws, kind === "user" ? s.ada : s.ben);
    const then = await c.callTool("get_memory", {
      ...s.team,
      format: "json",
      asOf: new Date(s.t1.getTime() + 60_000).toISOString(),
    });
    expect(then.isError).toBeFalsy();
    expect(then.structuredContent).toMatchObject({
      status: "ready",
      version: s.v1,
      current: false,
      statements: [
        {
          id: "s-leads",
          text: "Leads Kestrel",
          firstStated: s.t1.toISOString(),
          since: "2026-03-01T10:00:00.000Z",
        },
        { id: "s-reviews", text: "Reviews the ledger" },
      ],
    });
    const now = await c.callTool("get_memory", { ...s.team, asOf: new Date().toISOString() });
    expect(now.structuredContent).toMatchObject({ status: "ready", version: s.v2, current: true });
    const before = await c.callTool("get_memory", {
      ...s.team,
      asOf: new Date(s.t1.getTime() - 60_000).toISOString(),
    });
    expect(before.isError).toBe(true);
    expect(before.structuredContent).toMatchObject({ error: { code: "no_memory_at" } });
    const bad = await c.callTool("get_memory", { ...s.team, asOf: "last week" });
    expect(bad.structuredContent).toMatchObject({ error: { code: "bad_request" } });
  });

  it("diff_memory compares the current version with the one before, or any two", async () => {
    const s = await twoVersions(kind);
    const c = await client(s.ws, kind === "user" ? s.ada : s.ben);
    const diff = await c.callTool("diff_memory", { ...s.team });
    expect(diff.isError).toBeFalsy();
    expect(diff.structuredContent).toMatchObject({
      from: s.v1,
      to: s.v2,
      added: [{ id: "s-async", text: "Prefers async" }],
      kept: [{ id: "s-leads" }],
      removed: [{ statement: { id: "s-reviews", text: "Reviews the ledger" }, reason: "dropped" }],
    });
    expect(diff.content[0]!.text).toContain("- removed (dropped): Reviews the ledger");
    const reverse = await c.callTool("diff_memory", { ...s.team, version: s.v1, against: s.v2 });
    expect(reverse.structuredContent).toMatchObject({ from: s.v2, to: s.v1, added: [{ id: "s-reviews" }] });
    const unknown = await c.callTool("diff_memory", { ...s.team, version: crypto.randomUUID() });
    expect(unknown.structuredContent).toMatchObject({ error: { code: "not_found" } });
  });

  it("dismiss_statement takes a statement out of the current memory at once and records it", async () => {
    const s = await twoVersions(kind);
    const dismisser = kind === "user" ? s.ada : s.ben;
    const tools = (await (await client(s.ws, dismisser)).listTools()).tools;
    expect(tools.find((t) => t.name === "dismiss_statement")?.annotations).toMatchObject({
      destructiveHint: true,
      readOnlyHint: false,
    });

    const readOnly = await client(s.ws, dismisser, ["memory:read"]);
    await expect(readOnly.callTool("dismiss_statement", { ...s.team, id: "s-async" })).rejects.toThrow();

    const c = await client(s.ws, dismisser);
    const before = await api(s.ws, dismisser, "GET", kind === "user" ? "/memory" : "/teams/kestrel/memory");
    const result = await c.callTool("dismiss_statement", {
      ...s.team,
      id: "s-async",
      reason: "Not any more",
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      dismissal: { statementId: "s-async", text: "Prefers async", reason: "Not any more" },
      version: s.v2,
    });
    expect(result.structuredContent!.etag).not.toBe(before.headers.get("etag"));
    const read = await c.callTool("get_memory", { ...s.team, format: "json" });
    expect((read.structuredContent!.statements as { id: string }[]).map((st) => st.id)).toEqual(["s-leads"]);
    const diff = await c.callTool("diff_memory", { ...s.team });
    // The diff lists the dismissal too, with its reason and the dismissed words.
    expect(diff.structuredContent).toMatchObject({
      removed: [
        { statement: { id: "s-reviews" }, reason: "dropped" },
        {
          statement: { id: "s-async", text: "Prefers async" },
          reason: "dismissed",
          dismissal: { reason: "Not any more" },
        },
      ],
    });
    const again = await c.callTool("dismiss_statement", { ...s.team, id: "s-async" });
    expect(again.structuredContent).toMatchObject({ error: { code: "not_found" } });
    const list = await api(
      s.ws,
      s.ada,
      "GET",
      kind === "user" ? "/memory/dismissals" : "/teams/kestrel/memory/dismissals",
    );
    expect(
      ((await list.json()) as { dismissals: { statementId: string }[] }).dismissals.map((d) => d.statementId),
    ).toEqual(["s-async"]);

    if (kind === "team") {
      const outsider = newUserId("carl");
      await registerMembersIn(s.ws, outsider);
      const other = await client(s.ws, outsider);
      const refused = await other.callTool("dismiss_statement", { ...s.team, id: "s-leads" });
      expect(refused.structuredContent).toMatchObject({
        error: { code: "not_found", message: "Team not found" },
      });
    }
  });
});
