/**
 * Statements over time through the worker, for a personal and a team memory: ids, since and firstStated in
 * ?format=json; GET …/memory?asOf=; GET …/memory/versions/:id/diff with each removal's reason; dismissing a
 * statement (gone at once with a new ETag, told to and enforced on the next run, withdrawn), and erasing
 * dismissals with the subject. The runs are the real generator over the fake LLM: the generator scripted,
 * the judge the fake's policy (which calls a statement superseded next to a newer item giving another date).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { endUserIdOf } from "../src/agent/end-user";
import { teamKey, userKey } from "../src/domain/workspaces";
import type { Env } from "../src/env";
import * as res from "../src/http/response-schemas";
import worker from "../src/index";
import { READ_WRITE, tokenFor } from "./support/auth";
import { fakeLlm } from "./support/fake-llm-control";
import { FakeClock } from "./support/fakes/fake-clock";
import { type ItemPayload, item, warmUpWorker } from "./support/items";
import { connectClient } from "./support/mcp-clients";
import { clearAlarm, overrideAgentOf, runAlarm, services, testDb } from "./support/memory-agent";
import { registerMembersIn } from "./support/workspaces";

const llm = fakeLlm();
const agents: string[] = [];
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const key of agents.splice(0)) await clearAlarm(key);
});

const RECENT = { name: "recent_activity", input: { since: "2000-01-01T00:00:00Z" } };
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();
const MINUTE = 60_000;

interface Statement {
  id: string;
  section: string;
  text: string;
  citations: { id: string; occurredAt: string | null }[];
  since: string | null;
  firstStated: string;
}
interface MemoryJson {
  version: string;
  statements: Statement[];
}
interface Diff {
  from: string | null;
  to: string;
  added: Statement[];
  removed: { statement: { id: string; text: string | null }; reason: string }[];
  kept: Statement[];
}

/** One memory (a user's or a team's) in a workspace of its own, read and written by its members. */
async function subjectIn(kind: "user" | "team") {
  const ws = `stmt-${kind}-${crypto.randomUUID().slice(0, 8)}`;
  await registerMembersIn(ws, "ada", "ben", "carl");
  const key = kind === "user" ? userKey(ws, "ada") : teamKey(ws, "kestrel");
  const base = kind === "user" ? "/memory" : "/teams/kestrel/memory";
  const clock = new FakeClock(new Date(Date.now() + 365 * 24 * 60 * MINUTE));
  agents.push(key, userKey(ws, "ada"), userKey(ws, "ben"), teamKey(ws, "kestrel"));
  for (const k of new Set([key, userKey(ws, "ada"), userKey(ws, "ben"), teamKey(ws, "kestrel")])) {
    overrideAgentOf(k, { clock });
  }
  /** Who reads and refreshes it: its subject for a user's memory, a member for a team's. */
  const actor = kind === "user" ? "ada" : "ben";
  const send = async (
    user: string,
    method: string,
    path: string,
    body?: unknown,
    scopes: readonly string[] = READ_WRITE,
  ) => {
    const token = await tokenFor(
      user,
      [...scopes, ...(path.startsWith("/teams/kestrel") && method === "PUT" ? ["admin"] : [])],
      { org_id: ws },
    );
    const ctx = createExecutionContext();
    const request = new Request(`http://local${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const answer = await worker.fetch(
      request as Request<unknown, IncomingRequestCfProperties>,
      env as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return answer;
  };
  if (kind === "team") {
    expect(
      (await send("ada", "PUT", "/teams/kestrel", { name: "Kestrel", members: ["ada", "ben"] })).status,
    ).toBe(201);
  }
  const share = (items: ItemPayload[]) =>
    kind === "team" ? items.map((i) => ({ ...i, sharedWith: ["team:kestrel"] })) : items;
  const ingest = async (items: ItemPayload[]) => {
    const answer = await send("ada", "POST", "/items", { items: share(items) });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { items: { id: string }[] }).items.map((i) => i.id);
  };
  /** One run whose generator answers `memory` (after one research turn); the judge is the fake's policy. */
  const run = async (memory: string[], first = false) => {
    const script = await llm.script(
      await endUserIdOf(key),
      [{ toolCalls: [RECENT] }, { text: ["<memory>", ...memory, "</memory>"].join("\n") }],
      { role: "generator" },
    );
    if (first) {
      expect((await send(actor, "GET", base)).status).toBe(202);
    } else {
      clock.advance(services().config.memory.minIntervalMs + MINUTE);
      expect((await send(actor, "POST", `${base}/refresh`)).status).toBe(202);
    }
    expect(await runAlarm(key)).toBe(true);
    await script.assertComplete();
    return script;
  };
  const memoryJson = async (user = actor): Promise<MemoryJson & { etag: string }> => {
    const answer = await send(user, "GET", `${base}?format=json`);
    expect(answer.status).toBe(200);
    return { ...((await answer.json()) as MemoryJson), etag: answer.headers.get("etag") ?? "" };
  };
  /** As if the first memory had been generated now: what is ingested next is newer than it. */
  const backdate = () =>
    testDb().execute(sql`update memories set generated_at = now() where subject_id = ${key}`);
  return { ws, key, base, clock, send, ingest, run, memoryJson, backdate };
}

// For a user, ada is the subject and ben never reads it (he cannot): the personal subject is read by ada.
async function setUp(kind: "user" | "team") {
  const s = await subjectIn(kind);
  const reader = kind === "user" ? "ada" : "ben";
  const [dateId, standupId, reviewId, mentorId, prefersId] = await s.ingest([
    item({
      externalId: "date",
      title: "Kestrel cut-over date",
      body: "We agreed: the Kestrel cut-over is on 3 March.",
      author: "Ben Castillo",
      participants: ["Chloe Martin"],
      occurredAt: hoursAgo(72),
    }),
    item({
      externalId: "standup",
      source: "slack",
      kind: "message",
      title: "#platform",
      body: "Ada runs the weekly platform standup on Mondays.",
      author: "Dev Patel",
      participants: [],
      occurredAt: hoursAgo(71),
    }),
    item({
      externalId: "review",
      source: "github",
      kind: "pull_request",
      title: "Ledger retries",
      body: "Ada reviews every ledger pull request before it merges.",
      author: "Omar Haddad",
      participants: [],
      occurredAt: hoursAgo(70),
    }),
    item({
      externalId: "mentor",
      source: "notes",
      kind: "note",
      title: "Mentoring",
      body: "Ada mentors two new engineers on the platform team.",
      author: "Ada",
      participants: [],
      occurredAt: hoursAgo(69),
    }),
    item({
      externalId: "prefers",
      source: "notes",
      kind: "doc",
      title: "Working style",
      body: "Ada prefers written updates over meetings.",
      author: "Ada",
      participants: [],
      occurredAt: hoursAgo(68),
    }),
  ]);
  const lines = {
    date: "- The Kestrel cut-over is on 3 March [E1]",
    standup: "- Runs the weekly platform standup on Mondays [M1]",
    review: "- Reviews every ledger pull request before it merges [P1]",
    mentor: "- Mentors two new engineers on the platform team [N1]",
    prefers: "- Prefers written updates over meetings [D1]",
  };
  const read = (user = reader) => s.memoryJson(user);
  return { ...s, reader, lines, read, ids: { dateId, standupId, reviewId, mentorId, prefersId } };
}

const textsOf = (m: MemoryJson) => m.statements.map((st) => st.text);
const byText = (m: MemoryJson, text: string) => m.statements.find((st) => st.text === text)!;

describe.each(["user", "team"] as const)("a %s memory's statements over time", (kind) => {
  it("serves ids, since and firstStated; answers asOf; diffs versions with the reason of each removal", async () => {
    const s = await setUp(kind);
    await s.run(
      ["## Current projects", s.lines.date, s.lines.standup, s.lines.review, s.lines.mentor, s.lines.prefers],
      true,
    );
    const v1 = await s.read();
    expect(textsOf(v1)).toHaveLength(5);
    const date = byText(v1, "The Kestrel cut-over is on 3 March");
    expect(date).toMatchObject({ id: expect.any(String), since: date.citations[0]!.occurredAt });
    expect(res.memoryResponse.safeParse(v1).success).toBe(true);
    const v1Created = s.clock.now();

    await s.backdate();
    const [movedId] = await s.ingest([
      item({
        externalId: "moved",
        title: "Heads-up",
        body: "Update: the Kestrel cut-over moved to 10 March.",
        author: "Mara Quinn",
        participants: [],
        occurredAt: hoursAgo(1),
        links: [{ source: "gmail", externalId: "date", kind: "reply" }],
      }),
    ]);
    // The refresh copies every line but the preference, and adds the move.
    await s.run([
      "## Current projects",
      s.lines.date,
      s.lines.standup,
      s.lines.review,
      s.lines.mentor,
      "- Update: the Kestrel cut-over moved to 10 March [E2]",
    ]);
    const v2 = await s.read();
    expect(textsOf(v2)).toEqual([
      "Runs the weekly platform standup on Mondays",
      "Reviews every ledger pull request before it merges",
      "Mentors two new engineers on the platform team",
      "Update: the Kestrel cut-over moved to 10 March",
    ]);
    // Carried unchanged: the same id and first-stated date as in the first version.
    for (const text of textsOf(v2).slice(0, 3)) {
      expect(byText(v2, text).id).toBe(byText(v1, text).id);
      expect(byText(v2, text).firstStated).toBe(byText(v1, text).firstStated);
    }
    expect(
      byText(v2, "Update: the Kestrel cut-over moved to 10 March").firstStated >
        byText(v1, "Runs the weekly platform standup on Mondays").firstStated,
    ).toBe(true);

    const diff = (await (
      await s.send(s.reader, "GET", `${s.base}/versions/${v2.version}/diff`)
    ).json()) as Diff;
    expect(res.versionDiffResponse.parse(diff)).toBeTruthy();
    expect(diff.from).toBe(v1.version);
    expect(diff.to).toBe(v2.version);
    expect(diff.added.map((st) => st.text)).toEqual(["Update: the Kestrel cut-over moved to 10 March"]);
    expect(diff.kept.map((st) => st.id)).toEqual(v2.statements.slice(0, 3).map((st) => st.id));
    expect(diff.removed.map((r) => [r.statement.text, r.reason])).toEqual([
      ["The Kestrel cut-over is on 3 March", "superseded"],
      ["Prefers written updates over meetings", "dropped"],
    ]);
    const against = (await (
      await s.send(s.reader, "GET", `${s.base}/versions/${v1.version}/diff?against=${v2.version}`)
    ).json()) as Diff;
    expect(against.added.map((st) => st.text).sort()).toEqual([
      "Prefers written updates over meetings",
      "The Kestrel cut-over is on 3 March",
    ]);
    const first = (await (
      await s.send(s.reader, "GET", `${s.base}/versions/${v1.version}/diff`)
    ).json()) as Diff;
    expect(first).toMatchObject({ from: null, removed: [], kept: [] });
    expect(first.added).toHaveLength(5);
    expect((await s.send(s.reader, "GET", `${s.base}/versions/${crypto.randomUUID()}/diff`)).status).toBe(
      404,
    );

    // asOf: the first version while it was current, the second after; nothing before the first.
    const asOf = async (at: Date | string) =>
      s.send(
        s.reader,
        "GET",
        `${s.base}?format=json&asOf=${encodeURIComponent(typeof at === "string" ? at : at.toISOString())}`,
      );
    const then = await asOf(new Date(v1Created.getTime() + MINUTE));
    expect(then.status).toBe(200);
    const thenBody = (await then.json()) as MemoryJson & { current: boolean; asOf: string };
    expect(res.memoryAsOfResponse.parse(thenBody)).toBeTruthy();
    expect(thenBody).toMatchObject({ version: v1.version, current: false });
    expect(textsOf(thenBody)).toContain("The Kestrel cut-over is on 3 March");
    const now = (await (await asOf(s.clock.now())).json()) as MemoryJson & { current: boolean };
    expect(now).toMatchObject({ version: v2.version, current: true });
    const before = await asOf(new Date(v1Created.getTime() - MINUTE));
    expect(before.status).toBe(404);
    expect(((await before.json()) as { error: { code: string } }).error.code).toBe("no_memory_at");
    expect((await asOf("yesterday")).status).toBe(400);
    expect(
      (
        await s.send(
          s.reader,
          "GET",
          `${s.base}?asOf=${encodeURIComponent(s.clock.now().toISOString())}&wait=5`,
        )
      ).status,
    ).toBe(400);
    expect(
      (await s.send("carl", "GET", `${s.base}?asOf=${encodeURIComponent(s.clock.now().toISOString())}`))
        .status,
    ).toBe(404);
    void movedId;
  });

  it("dismisses a statement at once, keeps it out of the next refresh, and lets it back once withdrawn", async () => {
    const s = await setUp(kind);
    const all = ["## Current projects", s.lines.standup, s.lines.review, s.lines.mentor, s.lines.prefers];
    await s.run(all, true);
    const v1 = await s.read();
    const review = byText(v1, "Reviews every ledger pull request before it merges");
    // The item's page names the statements of the reader's own current memory citing it.
    const citedBy = async () =>
      ((await (await s.send(s.reader, "GET", `/items/${s.ids.reviewId}`)).json()) as { citedBy: unknown[] })
        .citedBy;
    expect(await citedBy()).toEqual(
      kind === "user" ? [{ id: review.id, section: review.section, text: review.text }] : [],
    );

    // The other member of a team may dismiss it; for a personal memory, only its subject can.
    const dismisser = kind === "team" ? "ben" : "ada";
    const path = `${s.base}/statements/${review.id}/dismiss`;
    expect((await s.send(dismisser, "POST", path, { reason: "x" }, ["memory:read"])).status).toBe(403);
    expect((await s.send("carl", "POST", path, { reason: "x" })).status).toBe(kind === "team" ? 404 : 404);
    const answer = await s.send(dismisser, "POST", path, { reason: "Omar reviews them now" });
    expect(answer.status).toBe(201);
    const dismissed = res.dismissResponse.parse(await answer.json());
    expect(dismissed.dismissal).toMatchObject({
      statementId: review.id,
      text: "Reviews every ledger pull request before it merges",
      reason: "Omar reviews them now",
      citations: [{ id: s.ids.reviewId }],
    });
    expect(dismissed.version).toBe(v1.version);
    expect(dismissed.etag).not.toBe(v1.etag);
    expect(answer.headers.get("etag")).toBe(dismissed.etag);
    // Gone at once, for every reader, with a new ETag (the old one no longer matches).
    const after = await s.read();
    expect(after.etag).toBe(dismissed.etag);
    expect(textsOf(after)).not.toContain(review.text);
    expect(await citedBy()).toEqual([]);
    const stale = await s.send(s.reader, "GET", s.base);
    expect(stale.headers.get("etag")).toBe(dismissed.etag);
    expect((await s.send(dismisser, "POST", path, {})).status).toBe(404);
    const listed = res.dismissalsResponse.parse(
      await (await s.send(s.reader, "GET", `${s.base}/dismissals`)).json(),
    );
    expect(listed.dismissals.map((d) => d.id)).toEqual([dismissed.dismissal.id]);
    const diffNow = (await (
      await s.send(s.reader, "GET", `${s.base}/versions/${v1.version}/diff`)
    ).json()) as Diff;
    expect(diffNow.added.map((st) => st.text)).not.toContain(review.text);
    // The version's history says what happened to it: dismissed (not redacted), with its words and why.
    expect(diffNow.removed).toEqual([
      {
        statement: expect.objectContaining({ id: review.id, text: review.text }),
        reason: "dismissed",
        dismissal: {
          id: dismissed.dismissal.id,
          reason: "Omar reviews them now",
          at: dismissed.dismissal.at,
        },
      },
    ]);
    const history = res.versionsResponse.parse(
      await (await s.send(s.reader, "GET", `${s.base}/versions`)).json(),
    );
    expect(history.versions.find((v) => v.id === v1.version)?.takenOut).toEqual({
      dismissed: 1,
      redacted: 0,
    });

    // The next refresh restates it word for word: the run is told, and the statement is dropped.
    const script = await s.run(all);
    const system = (await script.requests())[0]!.neutral!.system;
    expect(system).toContain("<dismissed_statements>");
    expect(system).toContain(
      "Reviews every ledger pull request before it merges</untrusted> (<untrusted>Omar reviews them now</untrusted>)",
    );
    const v2 = await s.read();
    expect(v2.version).not.toBe(v1.version);
    expect(textsOf(v2)).toEqual([
      "Runs the weekly platform standup on Mondays",
      "Mentors two new engineers on the platform team",
      "Prefers written updates over meetings",
    ]);
    const runs = (await (await s.send(s.reader, "GET", `${s.base}/runs`)).json()) as {
      runs: {
        versionId: string | null;
        salvaged: { statements: { text: string; cause: string }[] } | null;
      }[];
    };
    expect(runs.runs.find((r) => r.versionId === v2.version)?.salvaged?.statements).toEqual([
      expect.objectContaining({ text: review.text, cause: "dismissed" }),
    ]);
    const diff = (await (
      await s.send(s.reader, "GET", `${s.base}/versions/${v2.version}/diff`)
    ).json()) as Diff;
    expect(diff.removed).toEqual([]);
    expect(diff.kept).toHaveLength(3);

    // Withdrawn: the next run may state it again.
    const withdraw = `${s.base}/dismissals/${dismissed.dismissal.id}`;
    expect((await s.send(s.reader, "DELETE", withdraw, undefined, ["memory:read"])).status).toBe(403);
    expect((await s.send(s.reader, "DELETE", withdraw)).status).toBe(204);
    expect((await s.send(s.reader, "DELETE", withdraw)).status).toBe(404);
    expect(
      res.dismissalsResponse.parse(await (await s.send(s.reader, "GET", `${s.base}/dismissals`)).json())
        .dismissals,
    ).toEqual([]);
    // The history still says it was dismissed from v1; the withdrawn dismissal's words are gone with it.
    const diffWithdrawn = (await (
      await s.send(s.reader, "GET", `${s.base}/versions/${v1.version}/diff`)
    ).json()) as Diff;
    expect(diffWithdrawn.removed).toEqual([
      { statement: expect.objectContaining({ id: review.id, text: null }), reason: "dismissed" },
    ]);
    await s.run(all);
    expect(textsOf(await s.read())).toContain(review.text);
  });

  it("over MCP: dismisses a statement, keeps it out of the next refresh, lists it, withdraws it, and erases it with the subject", async () => {
    const s = await setUp(kind);
    const all = ["## Current projects", s.lines.standup, s.lines.review, s.lines.mentor];
    await s.run(all, true);
    const review = byText(await s.read(), "Reviews every ledger pull request before it merges");
    const member = kind === "team" ? "ben" : "ada";
    const mcp = await connectClient("modern", {
      token: await tokenFor(member, READ_WRITE, { org_id: s.ws }),
    });
    const team = kind === "team" ? { team: "kestrel" } : {};
    try {
      const dismissed = await mcp.callTool("dismiss_statement", {
        ...team,
        id: review.id,
        reason: "Omar does",
      });
      expect(dismissed.isError).toBeFalsy();
      const dismissalId = (dismissed.structuredContent!.dismissal as { id: string }).id;
      expect(textsOf(await s.read())).not.toContain(review.text);

      // The next refresh restates it word for word; the run drops it.
      await s.run(all);
      const read = await mcp.callTool("get_memory", { ...team, format: "json" });
      expect((read.structuredContent!.statements as { text: string }[]).map((st) => st.text)).toEqual([
        "Runs the weekly platform standup on Mondays",
        "Mentors two new engineers on the platform team",
      ]);
      const listed = await mcp.callTool("list_dismissals", { ...team });
      expect(listed.structuredContent).toMatchObject({
        dismissals: [{ id: dismissalId, statementId: review.id, reason: "Omar does" }],
      });

      // Withdrawn: listed no more, and the next run states it again.
      const withdrawn = await mcp.callTool("withdraw_dismissal", { ...team, id: dismissalId });
      expect(withdrawn.structuredContent).toEqual({ id: dismissalId, withdrawn: true });
      const twice = await mcp.callTool("withdraw_dismissal", { ...team, id: dismissalId });
      expect(twice.structuredContent).toMatchObject({ error: { code: "not_found" } });
      expect((await mcp.callTool("list_dismissals", { ...team })).structuredContent).toEqual({
        dismissals: [],
      });
      await s.run(all);
      expect(textsOf(await s.read())).toContain(review.text);

      // Dismissed again, then the subject is erased: its dismissals go with it.
      const again = byText(await s.read(), review.text);
      expect((await mcp.callTool("dismiss_statement", { ...team, id: again.id })).isError).toBeFalsy();
      const count = async () =>
        Number(
          (
            await testDb().execute(
              sql`select count(*) as n from memory_dismissals where subject_id = ${s.key}`,
            )
          ).rows[0]!.n,
        );
      expect(await count()).toBe(1);
      const erase =
        kind === "user"
          ? await s.send("ada", "DELETE", "/me")
          : await s.send("root", "DELETE", "/teams/kestrel", undefined, [...READ_WRITE, "admin"]);
      expect(erase.status).toBe(204);
      expect(await count()).toBe(0);
    } finally {
      await mcp.close();
    }
  });

  it("shows a redacted statement in a diff without its words, and drops a dismissal citing an item the subject loses", async () => {
    const s = await setUp(kind);
    const all = ["## Current projects", s.lines.standup, s.lines.review, s.lines.mentor, s.lines.prefers];
    await s.run(all, true);
    const v1 = await s.read();
    await s.run(all);
    const v2 = await s.read();
    const prefers = byText(v2, "Prefers written updates over meetings");
    expect(
      (
        await s.send(
          s.reader === "ben" ? "ben" : "ada",
          "POST",
          `${s.base}/statements/${prefers.id}/dismiss`,
          {},
        )
      ).status,
    ).toBe(201);

    // The owner deletes the items behind "mentors" and "prefers": both versions lose their statements.
    expect((await s.send("ada", "DELETE", `/items/${s.ids.mentorId}`)).status).toBe(204);
    expect((await s.send("ada", "DELETE", `/items/${s.ids.prefersId}`)).status).toBe(204);
    const diff = (await (
      await s.send(s.reader, "GET", `${s.base}/versions/${v2.version}/diff`)
    ).json()) as Diff;
    expect(diff.from).toBe(v1.version);
    // Without their words: they may come from the items the subject can no longer see.
    expect(diff.removed).toEqual([
      expect.objectContaining({
        statement: expect.objectContaining({ id: prefers.id, text: null }),
        reason: "dismissed",
      }),
      expect.objectContaining({
        statement: expect.objectContaining({
          id: byText(v1, "Mentors two new engineers on the platform team").id,
          text: null,
        }),
        reason: "redacted",
      }),
    ]);
    expect(JSON.stringify(diff)).not.toContain("Mentors two new engineers");
    expect(JSON.stringify(diff)).not.toContain("Prefers written updates");
    // Its words came from an item the subject no longer sees: the dismissal went with the redaction.
    expect(
      res.dismissalsResponse.parse(await (await s.send(s.reader, "GET", `${s.base}/dismissals`)).json())
        .dismissals,
    ).toEqual([]);
  });

  it("erases its dismissals with the subject (DELETE /me, DELETE /teams/:team)", async () => {
    const s = await setUp(kind);
    await s.run(["## Current projects", s.lines.standup, s.lines.review], true);
    const v1 = await s.read();
    expect(
      (
        await s.send(
          kind === "team" ? "ben" : "ada",
          "POST",
          `${s.base}/statements/${v1.statements[0]!.id}/dismiss`,
          {},
        )
      ).status,
    ).toBe(201);
    const count = async () =>
      Number(
        (await testDb().execute(sql`select count(*) as n from memory_dismissals where subject_id = ${s.key}`))
          .rows[0]!.n,
      );
    expect(await count()).toBe(1);
    if (kind === "user") {
      expect((await s.send("ada", "DELETE", "/me")).status).toBe(204);
    } else {
      const token = await tokenFor("root", [...READ_WRITE, "admin"], { org_id: s.ws });
      const ctx = createExecutionContext();
      const answer = await worker.fetch(
        new Request("http://local/teams/kestrel", {
          method: "DELETE",
          headers: { authorization: `Bearer ${token}` },
        }) as Request<unknown, IncomingRequestCfProperties>,
        env as Env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(answer.status).toBe(204);
    }
    expect(await count()).toBe(0);
  });
});
