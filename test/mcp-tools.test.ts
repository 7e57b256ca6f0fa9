import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { newUserId, READ_WRITE, tokenFor } from "./support/auth";
import { item } from "./support/items";
import {
  CLIENT_KINDS,
  type ClientKind,
  connectClient,
  type McpTestClient,
  settledWorkerFetch,
  type WorkerFetch,
} from "./support/mcp-clients";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  hoursAgo,
  ingestSettled,
  installAgent,
  runAlarm,
  seedMemory,
  statement,
} from "./support/memory-agent";

const used: string[] = [];
const clients: McpTestClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const id of used.splice(0)) await clearAlarm(id);
});

/** A fresh user whose agent runs on a clock a year ahead (its alarms only run when a test runs them). */
const testDb = createDb(parseConfig(env));

async function user(generator = new FakeGenerator()): Promise<string> {
  const userId = newUserId("mcp");
  used.push(userId);
  await installAgent(userId, generator);
  return userId;
}

async function clientFor(
  kind: ClientKind,
  userId: string,
  scopes: readonly string[] = READ_WRITE,
): Promise<McpTestClient> {
  const client = await connectClient(kind, { token: await tokenFor(userId, scopes) });
  clients.push(client);
  return client;
}

const textOf = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((c) => c.text ?? "").join("\n");

describe.each(CLIENT_KINDS)("MCP through the %s client", (kind) => {
  it("negotiates its protocol era and lists the tools, resources and prompt", async () => {
    const client = await clientFor(kind, await user());
    expect(client.protocolVersion).toBe(
      kind === "modern" || kind === "negotiated" ? "2026-07-28" : "2025-11-25",
    );

    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(
      [
        "diff_memory",
        "dismiss_statement",
        "find_people",
        "forget_item",
        "get_item",
        "get_memory",
        "get_person",
        "list_dismissals",
        "refresh_memory",
        "remember",
        "search_items",
        "withdraw_dismissal",
      ].sort(),
    );
    for (const name of ["get_memory", "search_items", "get_item", "diff_memory", "list_dismissals"]) {
      expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(byName.forget_item!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.dismiss_statement!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.remember!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    // Every input field is optional except the one a tool cannot work without: new optional fields
    // (such as a team) can be added without breaking a client that does not know them.
    const required = Object.fromEntries(
      tools.map((t) => [t.name, ((t.inputSchema as { required?: string[] }).required ?? []).sort()]),
    );
    expect(required).toEqual({
      get_memory: [],
      refresh_memory: [],
      search_items: [],
      get_item: ["id"],
      remember: ["text"],
      forget_item: ["id"],
      dismiss_statement: ["id"],
      list_dismissals: [],
      withdraw_dismissal: ["id"],
      diff_memory: [],
      find_people: [],
      get_person: ["id"],
    });

    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["memory://me"]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(
      ["item://{id}", "memory://team/{team}"],
    );
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["with-memory"]);
  });

  it("serves the memory through get_memory (markdown and json), memory://me and the with-memory prompt", async () => {
    const me = await user();
    const [a, b] = await ingestSettled(me, [
      item({ externalId: "a", title: "Payments kickoff" }),
      item({ externalId: "b", title: "Launch date" }),
    ]);
    const version = await seedMemory(
      me,
      [statement("Work", "Leads the payments migration", a!), statement("Work", "Ships on Friday", b!)],
      { generatedAt: hoursAgo(1) },
    );
    const client = await clientFor(kind, me);

    const markdown = await client.callTool("get_memory", {});
    expect(markdown.isError).toBeFalsy();
    expect(markdown.structuredContent).toMatchObject({ status: "ready", version, stale: false });
    expect(markdown.structuredContent?.memory).toContain("Leads the payments migration [1]");
    expect(textOf(markdown)).toContain(`[1] email · Payments kickoff`);

    const json = await client.callTool("get_memory", { format: "json" });
    expect(json.structuredContent).toMatchObject({
      status: "ready",
      statements: [
        {
          section: "Work",
          text: "Leads the payments migration",
          citations: [{ id: a, title: "Payments kickoff" }],
        },
        { section: "Work", text: "Ships on Friday", citations: [{ id: b }] },
      ],
    });

    const resource = await client.readResource("memory://me");
    expect(resource.contents[0]!.text).toContain("Ships on Friday [2]");

    const prompt = await client.getPrompt("with-memory");
    expect(prompt.messages[0]!.role).toBe("user");
    expect(prompt.messages[0]!.content.text).toContain("Leads the payments migration");
  });

  it("searches and reads the caller's items with their links, and another user's item is not found", async () => {
    const me = await user();
    const other = await user();
    const [kickoff, reply] = await ingestSettled(me, [
      item({ externalId: "k", title: "Quokka kickoff", body: "The quokka project starts Monday" }),
      item({
        externalId: "r",
        title: "Re: kickoff",
        body: "Agreed",
        links: [{ externalId: "k", kind: "reply" }],
      }),
    ]);
    const [theirs] = await ingestSettled(other, [item({ externalId: "x", body: "The quokka secret" })]);
    const client = await clientFor(kind, me);

    const search = await client.callTool("search_items", { query: "quokka", kinds: ["email"], limit: 5 });
    expect(search.isError).toBeFalsy();
    const hits = (search.structuredContent?.items ?? []) as { id: string }[];
    expect(hits.map((h) => h.id)).toEqual([kickoff]);
    expect(textOf(search)).toContain(`${kickoff} · email`);

    const read = await client.callTool("get_item", { id: kickoff! });
    expect(read.structuredContent).toMatchObject({
      id: kickoff,
      title: "Quokka kickoff",
      links: [{ direction: "incoming", kind: "reply", item: { id: reply } }],
    });
    const resource = await client.readResource(`item://${reply}`);
    expect(resource.contents[0]!.text).toContain(`→ reply ${kickoff}`);

    for (const id of [theirs!, crypto.randomUUID(), "not-an-id"]) {
      const missing = await client.callTool("get_item", { id });
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toEqual({ error: { code: "not_found", message: "Item not found" } });
    }
    await expect(client.readResource(`item://${theirs}`)).rejects.toThrow(/not found/i);
  });

  it("remembers a note (source mcp), the same text again updates it, and forget_item deletes it with redaction", async () => {
    const me = await user();
    const client = await clientFor(kind, me);

    const first = await client.callTool("remember", { text: "I prefer async updates over meetings" });
    expect(first.structuredContent).toMatchObject({ status: "created", source: "mcp" });
    const again = await client.callTool("remember", { text: "I prefer async updates over meetings" });
    expect(again.structuredContent).toMatchObject({ id: first.structuredContent?.id, status: "updated" });
    const noteId = String(first.structuredContent?.id);

    const found = await client.callTool("search_items", { query: "async meetings", kinds: ["note"] });
    expect(((found.structuredContent?.items ?? []) as { id: string }[]).map((i) => i.id)).toEqual([noteId]);
    const material = await testDb.execute<{ changed: boolean }>(
      sql`select material_changed_at is not null as changed from memories where subject_id = ${me}`,
    );
    expect(material.rows[0]?.changed).toBe(true);

    await seedMemory(me, [statement("Preferences", "Prefers async updates", noteId)], {
      generatedAt: hoursAgo(1),
    });
    const forgotten = await client.callTool("forget_item", { id: noteId });
    expect(forgotten.structuredContent).toEqual({ id: noteId, deleted: true, left: false });
    const memory = await client.callTool("get_memory", { format: "json" });
    expect(memory.structuredContent?.statements).toEqual([]);
    const gone = await client.callTool("forget_item", { id: noteId });
    expect(gone.structuredContent).toEqual({ error: { code: "not_found", message: "Item not found" } });
  });
});

describe("get_memory and refresh_memory states", () => {
  it("answers generating with retryAfter and schedules a first run, never an exception", async () => {
    const me = await user();
    await ingestSettled(me, [item({ externalId: "plan" })]);
    const client = await clientFor("modern", me);
    const result = await client.callTool("get_memory", {});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: "generating", retryAfter: 5 });
    expect(textOf(result)).toBe("The memory is being generated; retry in 5 s.");
    expect((await agentStub(me).status()).phase).toBe("scheduled");
  });

  it("answers empty, not an error, while the user can see no item, and schedules no run", async () => {
    const me = await user();
    const client = await clientFor("v1", me);
    const result = await client.callTool("get_memory", { format: "json" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: "empty",
      version: null,
      statements: [],
      citations: [],
    });
    expect(textOf(result)).toMatch(/^There is nothing to remember yet/);
    expect((await agentStub(me).status()).phase).toBe("idle");
  });

  it("answers unavailable with the reason when the last runs failed", async () => {
    const me = await user();
    await testDb.execute(
      sql`insert into memories (subject_id, status, error_code) values (${me}, 'failed', 'llm_timeout')`,
    );
    const client = await clientFor("v1", me);
    const result = await client.callTool("get_memory", {});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: "unavailable", code: "generation_failing" });
    expect(textOf(result)).toMatch(/^The memory is not available: .*\(generation_failing\)$/);
  });

  it("refresh_memory schedules a run, and inside the min interval is a rate_limited tool error", async () => {
    const me = await user(new FakeGenerator({ kind: "accept", statements: [] }));
    await ingestSettled(me, [item({ externalId: "plan" })]);
    const client = await clientFor("modern", me);
    const scheduled = await client.callTool("refresh_memory", {});
    expect(scheduled.structuredContent).toMatchObject({ status: "scheduled", runAt: expect.any(String) });
    expect(await runAlarm(me)).toBe(true);

    const refused = await client.callTool("refresh_memory", {});
    expect(refused.isError).toBe(true);
    const error = (refused.structuredContent as { error: { code: string; retryAfter: number } }).error;
    expect(error.code).toBe("rate_limited");
    expect(error.retryAfter).toBeGreaterThan(0);
  });
});

describe("bad tool input", () => {
  it("is a tool error that says what is wrong, and the connection keeps working", async () => {
    const me = await user();
    const client = await clientFor("modern", me);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["search_items", { since: "2026-03-02", until: "2026-03-01" }, /since.*before.*until/],
      ["search_items", { limit: 500 }, /limit/],
      ["search_items", { kinds: ["fax"] }, /kinds/],
      ["remember", { text: "   " }, /text/],
      ["remember", { text: "x", occurredAt: "yesterday" }, /occurredAt/],
      ["get_item", {}, /id/],
    ];
    for (const [tool, args, message] of cases) {
      const result = await client.callTool(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result)).toMatch(message);
    }
    expect((await client.callTool("search_items", {})).isError).toBeFalsy();
  });
});

describe.each(CLIENT_KINDS)("invalid arguments through the %s client", (kind) => {
  it("are one validation_failed tool error naming every field and its problem, in structuredContent and text", async () => {
    const client = await clientFor(kind, await user());
    // Listing first, as agents do: a client may then check every result against the output schemas.
    await client.listTools();
    const cases: [string, Record<string, unknown>, string[]][] = [
      ["search_items", { limit: 500, kinds: ["fax"], since: "someday" }, ["kinds.0", "since", "limit"]],
      ["remember", { text: "   ", occurredAt: "yesterday" }, ["text", "occurredAt"]],
      ["get_item", {}, ["id"]],
      ["get_memory", { format: "html", team: "" }, ["format", "team"]],
    ];
    for (const [tool, args, fields] of cases) {
      const result = await client.callTool(tool, args);
      expect(result.isError, tool).toBe(true);
      const error = (
        result.structuredContent as {
          error: {
            code: string;
            message: string;
            details: { problems: { path: string; message: string }[] };
          };
        }
      ).error;
      expect(error.code, tool).toBe("validation_failed");
      expect(error.details.problems.map((p) => p.path).sort(), tool).toEqual([...fields].sort());
      for (const problem of error.details.problems) {
        expect(problem.message.length, `${tool} ${problem.path}`).toBeGreaterThan(0);
        expect(error.message).toContain(`${problem.path}: ${problem.message}`);
        expect(textOf(result)).toContain(`${problem.path}: ${problem.message}`);
      }
    }
  });
});

describe("headers of every answer from /mcp", () => {
  it.each(CLIENT_KINDS)("carry X-Request-Id and X-Content-Type-Options for the %s client", async (kind) => {
    const seen: Response[] = [];
    const fetch: WorkerFetch = async (request) => {
      const res = await settledWorkerFetch(request);
      seen.push(res);
      return res;
    };
    const client = await connectClient(kind, { token: await tokenFor(await user()), fetch });
    clients.push(client);
    await client.listTools();
    await client.callTool("search_items", {});
    await client.callTool("get_item", { id: "not-an-item" });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    const ids = seen.map((res) => res.headers.get("x-request-id"));
    for (const [i, res] of seen.entries()) {
      expect(ids[i], `answer ${i} (${res.status})`).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get("x-content-type-options"), `answer ${i}`).toBe("nosniff");
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});
