/**
 * The audit trail end to end: reads and access-changing writes over HTTP and MCP become events (through the
 * real audit queue in workerd, into Postgres), visible in GET /audit (admin) and the subject's GET /me/audit,
 * with the right actor, subject, channel, client, version and status; never a query's text.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../src/domain/audit";
import { newUserId, READ_WRITE, tokenFor } from "./support/auth";
import { call, item, json, warmUpWorker } from "./support/items";
import { connectClient, type McpTestClient } from "./support/mcp-clients";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  ingestSettled,
  installAgent,
  runAlarm,
  services,
  statement,
} from "./support/memory-agent";
import { registerMembers } from "./support/workspaces";

beforeAll(warmUpWorker);

const ADMIN = [...READ_WRITE, "admin"] as const;
const used: string[] = [];
const clients: McpTestClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const id of used.splice(0)) await clearAlarm(id);
});

interface AuditEventJson {
  id: string;
  at: string;
  actor: string;
  subject: string;
  action: string;
  channel: string;
  client: string | null;
  requestId: string;
  version: string | null;
  itemIds: string[];
  queryHash: string | null;
  status: number;
}

const admin = newUserId("auditor");

/** GET /audit as an admin, until at least `count` events match (the queue delivers within seconds). */
async function auditUntil(
  query: string,
  count: number,
  path = "/audit",
  as = admin,
): Promise<AuditEventJson[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await call(as, "GET", `${path}?limit=1000&${query}`, {
      scopes: path === "/audit" ? ADMIN : READ_WRITE,
    });
    expect(res.status).toBe(200);
    const { events } = await json<{ events: AuditEventJson[] }>(res);
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A user whose first memory was generated (by a fake generator) and is served. */
async function userWithMemory(label: string) {
  const userId = newUserId(label);
  used.push(userId);
  const generator = new FakeGenerator();
  await installAgent(userId, generator);
  const [itemId] = await ingestSettled(userId, [
    item({ externalId: `${label}-1`, body: "The payments migration" }),
  ]);
  generator.push({
    kind: "accept",
    statements: [statement("Work", "Leads the payments migration", itemId!)],
  });
  await agentStub(userId).requestRefresh(userId, "manual");
  expect(await runAlarm(userId)).toBe(true);
  // Read through the store, not the API: the tests count every API read.
  const version = (await services().memoryReader.current(userId))?.version?.id;
  expect(version).toBeDefined();
  return { userId, itemId: itemId!, version: version! };
}

describe("reads are audited", () => {
  it("N reads over HTTP and MCP by known actors are exactly N events, in GET /audit and GET /me/audit", async () => {
    const { userId, version } = await userWithMemory("audited");
    for (let i = 0; i < 3; i++) {
      const res = await call(userId, "GET", "/memory", {
        headers: { "user-agent": "agent-kit/3.2 (linux)" },
      });
      expect(res.status).toBe(200);
    }
    const token = await tokenFor(userId);
    const modern = await connectClient("modern", { token });
    const legacy = await connectClient("v1", { token, headers: { "user-agent": "old-agent/1.0" } });
    clients.push(modern, legacy);
    for (const client of [modern, legacy]) {
      const result = await client.callTool("get_memory", {});
      expect(result.isError).toBeFalsy();
    }
    expect((await modern.readResource("memory://me")).contents[0]?.text).toContain("payments migration");

    const events = await auditUntil(`actor=${userId}`, 6);
    expect(events).toHaveLength(6);
    for (const e of events) {
      expect(e).toMatchObject({
        actor: userId,
        subject: userId,
        action: "memory.read",
        version,
        status: 200,
      });
    }
    const http = events.filter((e) => e.channel === "http");
    expect(http).toHaveLength(3);
    expect(http.every((e) => e.client === "agent-kit/3.2")).toBe(true);
    const mcp = events.filter((e) => e.channel === "mcp");
    expect(mcp).toHaveLength(3);
    expect(mcp.filter((e) => e.client === "test-modern/1.0.0")).toHaveLength(2);
    // A 2025-era call after initialize: the client's name comes back in the signed session id.
    expect(mcp.filter((e) => e.client !== "test-modern/1.0.0").map((e) => e.client)).toEqual([
      "test-v1/1.0.0",
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(6);

    const mine = await auditUntil("", 6, "/me/audit", userId);
    expect(mine.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
  });

  it("is admin-only at /audit and /usage: 403 for a member's token", async () => {
    const userId = newUserId("nosy");
    for (const path of ["/audit", "/audit?format=ndjson", "/usage"]) {
      const res = await call(userId, "GET", path);
      expect(res.status, path).toBe(403);
    }
  });

  it("records a 304 and a refusal with their status, a search by its query's hash and the ids it returned", async () => {
    const { userId, version, itemId } = await userWithMemory("statuses");
    const etag = (await call(userId, "GET", "/memory")).headers.get("etag")!;
    expect((await call(userId, "GET", "/memory", { headers: { "if-none-match": etag } })).status).toBe(304);
    const stranger = crypto.randomUUID();
    expect((await call(userId, "GET", `/items/${stranger}`)).status).toBe(404);
    expect((await call(userId, "GET", `/items/${itemId}`)).status).toBe(200);
    expect((await call(userId, "GET", "/items?q=payments+migration")).status).toBe(200);

    const events = await auditUntil(`actor=${userId}`, 5);
    const reads = events.filter((e) => e.action === "memory.read").map((e) => [e.status, e.version]);
    expect(reads.sort()).toEqual(
      [
        [200, version],
        [304, version],
      ].sort(),
    );
    const items = events.filter((e) => e.action === "item.read");
    expect(items.map((e) => [e.status, e.itemIds[0], e.subject]).sort()).toEqual(
      [
        [200, itemId, userId],
        [404, stranger, userId],
      ].sort(),
    );
    const [search] = events.filter((e) => e.action === "items.search");
    expect(search).toMatchObject({
      status: 200,
      itemIds: [itemId],
      queryHash: await sha256Hex("payments migration"),
    });
    expect(JSON.stringify(events)).not.toContain("payments migration");

    // A page carries the titles of its items the reader may see: the user's own item, not the unknown id;
    // the admin, who may not see the user's item, gets no title for it.
    type Titled = { items: { id: string; kind: string; title: string | null }[] };
    const mine = await json<Titled>(
      await call(userId, "GET", "/me/audit?limit=1000", { scopes: READ_WRITE }),
    );
    expect(mine.items).toEqual([{ id: itemId, kind: expect.any(String), title: expect.any(String) }]);
    const theirs = await json<Titled>(
      await call(admin, "GET", `/audit?limit=1000&actor=${userId}`, { scopes: ADMIN }),
    );
    expect(theirs.items.map((i) => i.id)).not.toContain(itemId);
  });

  it("exports the workspace's events as NDJSON, one event a line, filtered like the JSON list", async () => {
    const { userId } = await userWithMemory("exported");
    await call(userId, "GET", "/memory");
    await call(userId, "GET", "/memory/versions");
    await auditUntil(`actor=${userId}`, 1);
    const res = await call(admin, "GET", `/audit?format=ndjson&actor=${userId}&action=memory.read`, {
      scopes: ADMIN,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as AuditEventJson);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.every((e) => e.actor === userId && e.action === "memory.read")).toBe(true);
  });
});

describe("the NDJSON export", () => {
  it("escapes U+2028, U+2029 and U+0085, so a tool splitting on any Unicode line break sees one event a line", async () => {
    const actor = newUserId("line-breaks");
    const client = "agent\u2028one\u2029two\u0085three/1.0";
    await services().auditStore.write([
      {
        id: crypto.randomUUID(),
        at: new Date().toISOString(),
        workspaceId: "default",
        actor,
        subject: actor,
        action: "memory.read",
        channel: "mcp",
        client,
        requestId: crypto.randomUUID(),
        version: null,
        itemIds: [],
        queryHash: null,
        status: 200,
      },
    ]);
    const res = await call(admin, "GET", `/audit?format=ndjson&actor=${actor}`, { scopes: ADMIN });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toMatch(/[\u2028\u2029\u0085]/);
    const lines = text.split(/\r\n|[\n\r\u2028\u2029\u0085]/).filter((l) => l !== "");
    expect(lines.map((l) => (JSON.parse(l) as AuditEventJson).client)).toEqual([client]);
  });
});

describe("every audited action", () => {
  it("versions, diffs, asOf, dismissals, item deletes and unshares, over HTTP and MCP", async () => {
    const { userId, version, itemId } = await userWithMemory("actions");
    const sharee = newUserId("sharee");
    used.push(sharee);
    await registerMembers(sharee);
    const [shared] = await ingestSettled(userId, [item({ externalId: "shared", sharedWith: [sharee] })]);
    const [own] = await ingestSettled(userId, [item({ externalId: "own" })]);

    expect((await call(userId, "GET", `/memory/versions/${version}`)).status).toBe(200);
    expect((await call(userId, "GET", `/memory/versions/${version}/diff`)).status).toBe(200);
    expect(
      (await call(userId, "GET", `/memory?asOf=${new Date(Date.now() + 2 * 365 * 86_400_000).toISOString()}`))
        .status,
    ).toBe(200);
    const current = await json<{ statements: { id: string }[] }>(
      await call(userId, "GET", "/memory?format=json"),
    );
    const statementId = current.statements[0]!.id;
    expect((await call(sharee, "GET", `/items/${shared}`)).status).toBe(200);
    expect((await call(sharee, "DELETE", `/items/${shared}`)).status).toBe(204);
    const client = await connectClient("modern", { token: await tokenFor(userId) });
    clients.push(client);
    expect((await client.callTool("forget_item", { id: own })).isError).toBeFalsy();
    expect((await client.callTool("diff_memory", {})).isError).toBeFalsy();
    expect((await client.callTool("get_item", { id: itemId })).isError).toBeFalsy();
    expect((await client.callTool("search_items", { query: "payments" })).isError).toBeFalsy();
    expect((await client.callTool("dismiss_statement", { id: statementId })).isError).toBeFalsy();

    const events = await auditUntil(`actor=${userId}`, 9);
    const seen = events.map((e) => `${e.channel} ${e.action} ${e.status}`).sort();
    expect(seen).toEqual(
      [
        "http memory.version.read 200",
        "http memory.diff.read 200",
        "http memory.version.read 200",
        "http memory.read 200",
        "mcp item.delete 200",
        "mcp memory.diff.read 200",
        "mcp item.read 200",
        "mcp items.search 200",
        "mcp statement.dismiss 200",
      ].sort(),
    );
    const byAction = (action: string) => events.filter((e) => e.action === action);
    expect(byAction("memory.diff.read").every((e) => e.version !== null)).toBe(true);
    expect(byAction("item.delete")[0]!.itemIds).toEqual([own]);
    expect(byAction("statement.dismiss")[0]!.version).toBe(version);

    // The sharee read the owner's item (the owner is the subject) and then left the share.
    const shareeEvents = await auditUntil(`actor=${sharee}`, 2);
    expect(shareeEvents.map((e) => `${e.action} ${e.subject} ${e.itemIds[0]}`).sort()).toEqual(
      [`item.read ${userId} ${shared}`, `item.unshare ${sharee} ${shared}`].sort(),
    );
    // The owner sees who read their item.
    const mine = await auditUntil(`actor=${sharee}`, 1, "/me/audit", userId);
    expect(mine.map((e) => e.action)).toEqual(["item.read"]);
  });

  it("the history listed, dismissals listed and withdrawn, over HTTP and MCP", async () => {
    const { userId, version } = await userWithMemory("history");
    const current = await json<{ statements: { id: string }[] }>(
      await call(userId, "GET", "/memory?format=json"),
    );
    const dismissed = await call(userId, "POST", `/memory/statements/${current.statements[0]!.id}/dismiss`);
    expect(dismissed.status).toBe(201);
    const { dismissal } = await json<{ dismissal: { id: string } }>(dismissed);
    expect((await call(userId, "GET", "/memory/runs")).status).toBe(200);
    expect((await call(userId, "GET", "/memory/versions")).status).toBe(200);
    expect((await call(userId, "GET", "/memory/dismissals")).status).toBe(200);
    expect((await call(userId, "DELETE", `/memory/dismissals/${dismissal.id}`)).status).toBe(204);
    expect((await call(userId, "DELETE", `/memory/dismissals/${dismissal.id}`)).status).toBe(404);
    const client = await connectClient("modern", { token: await tokenFor(userId) });
    clients.push(client);
    expect((await client.callTool("list_dismissals", {})).isError).toBeFalsy();
    expect((await client.callTool("withdraw_dismissal", { id: crypto.randomUUID() })).isError).toBe(true);

    const events = await auditUntil(`actor=${userId}`, 9);
    expect(events.map((e) => `${e.channel} ${e.action} ${e.status}`).sort()).toEqual(
      [
        "http memory.read 200",
        "http statement.dismiss 201",
        "http memory.runs.list 200",
        "http memory.versions.list 200",
        "http memory.dismissals.list 200",
        "http dismissal.withdraw 204",
        "http dismissal.withdraw 404",
        "mcp memory.dismissals.list 200",
        "mcp dismissal.withdraw 404",
      ].sort(),
    );
    expect(events.every((e) => e.subject === userId)).toBe(true);
    expect(events.find((e) => e.action === "statement.dismiss")!.version).toBe(version);
  });

  it("member additions and removals and team changes, by the admin who made them", async () => {
    const boss = newUserId("boss");
    const member = newUserId("member");
    const newcomer = newUserId("newcomer");
    await registerMembers(member);
    const team = `t-${crypto.randomUUID().slice(0, 8)}`;
    const as = (method: string, path: string, body?: unknown) =>
      call(boss, method, path, { body, scopes: ADMIN });
    expect((await as("PUT", `/teams/${team}`, { name: "Crew", members: [member] })).status).toBe(201);
    expect((await as("DELETE", `/teams/${team}`)).status).toBe(204);
    expect((await as("DELETE", `/members/${member}`)).status).toBe(204);
    expect((await as("DELETE", `/members/${boss}`)).status).toBe(400);
    expect((await as("PUT", `/members/${member}`)).status).toBe(201);
    expect((await as("PUT", `/members/${newcomer}`)).status).toBe(201);
    expect((await as("PUT", `/members/${newcomer}`)).status).toBe(200);
    const events = await auditUntil(`actor=${boss}`, 7);
    expect(events.map((e) => `${e.action} ${e.subject} ${e.status}`).sort()).toEqual(
      [
        `team.change team:${team} 201`,
        `team.change team:${team} 204`,
        `member.remove ${member} 204`,
        `member.remove ${boss} 400`,
        `member.add ${member} 201`,
        `member.add ${newcomer} 201`,
        `member.add ${newcomer} 200`,
      ].sort(),
    );
  });

  it("an export of the audit trail, by its subject filter, and a refused one", async () => {
    const { userId } = await userWithMemory("export-subject");
    const exporter = newUserId("exporter");
    const exported = await call(exporter, "GET", `/audit?format=ndjson&subject=${userId}`, { scopes: ADMIN });
    expect(exported.status).toBe(200);
    await exported.arrayBuffer();
    expect((await call(exporter, "GET", "/audit?format=ndjson", { scopes: ADMIN })).status).toBe(200);
    // A member without the admin scope is refused, and the attempt is recorded.
    expect((await call(userId, "GET", "/audit?format=ndjson")).status).toBe(403);

    const byExporter = await auditUntil(`actor=${exporter}&action=audit.export`, 2);
    expect(byExporter.map((e) => `${e.subject} ${e.status}`).sort()).toEqual(
      [`${userId} 200`, `${exporter} 200`].sort(),
    );
    const refused = await auditUntil(`actor=${userId}&action=audit.export`, 1);
    expect(refused.map((e) => `${e.subject} ${e.status}`)).toEqual([`${userId} 403`]);
    // The subject sees that their events were exported.
    const mine = await auditUntil("action=audit.export", 2, "/me/audit", userId);
    expect(mine.map((e) => `${e.actor} ${e.status}`).sort()).toEqual(
      [`${exporter} 200`, `${userId} 403`].sort(),
    );
  });

  it("DELETE /me keeps the erased user's events under a one-way hash, their erase included", async () => {
    const { userId } = await userWithMemory("erased");
    expect((await call(userId, "GET", "/memory")).status).toBe(200);
    await auditUntil(`actor=${userId}`, 1);
    expect((await call(userId, "DELETE", "/me")).status).toBe(204);
    const hashed = `erased:${(await sha256Hex(`default\u001f${userId}`)).slice(0, 32)}`;
    const events = await auditUntil(`actor=${hashed}`, 2);
    expect(events.map((e) => `${e.action} ${e.subject}`).sort()).toEqual(
      [`me.erase ${hashed}`, `memory.read ${hashed}`].sort(),
    );
    expect(await auditUntil(`actor=${userId}`, 0)).toEqual([]);
  });
});
