/**
 * Freshness through the worker with the real wiring (MemoryAgent alarm -> real generator -> the SDKs -> the
 * fake LLM): the first memory is scripted to state a date; the refresh is the fake's reference policy,
 * which copies every previous bullet (it never drops a line by itself), and its judge, which calls a
 * statement superseded when a newer item shown with it gives another date. What removes the old date is
 * the service showing the carried statement to the judge next to the newer item that touches it: through a
 * reply link, through an @-mention, and (the control) not at all when nothing links the two.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { endUserIdOf } from "../src/agent/end-user";
import { newUserId } from "./support/auth";
import { backdateMemory, firstMemory, forcedRefresh, memoryJson, runsOf, setAgentClock } from "./support/e2e";
import { fakeLlm } from "./support/fake-llm-control";
import { FakeClock } from "./support/fakes/fake-clock";
import { type ItemPayload, item, warmUpWorker } from "./support/items";
import { clearAlarm, ingestSettled } from "./support/memory-agent";

const llm = fakeLlm();
const used: string[] = [];
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

const RECENT = { name: "recent_activity", input: { since: "2000-01-01T00:00:00Z" } };
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

const BEFORE = [
  item({
    externalId: "kestrel-date",
    title: "Kestrel cut-over date",
    body: "We agreed: the Kestrel cut-over is on 3 March.",
    author: "Ben Castillo <ben@northwind.test>",
    participants: ["Chloe Martin <chloe@northwind.test>"],
    occurredAt: hoursAgo(72),
  }),
  item({
    externalId: "standup",
    source: "slack",
    kind: "message",
    title: "#platform",
    body: "Ada runs the weekly platform standup on Mondays.",
    author: "Dev Patel",
    participants: ["Dev Patel"],
    occurredAt: hoursAgo(70),
  }),
  item({
    externalId: "review",
    source: "github",
    kind: "pull_request",
    title: "Ledger retries",
    body: "Ada reviews every ledger pull request before it merges.",
    author: "Omar Haddad",
    participants: ["Omar Haddad"],
    occurredAt: hoursAgo(69),
  }),
  item({
    externalId: "mentor",
    source: "notes",
    kind: "note",
    title: "Mentoring",
    body: "Ada mentors two new engineers on the platform team.",
    author: "Ada",
    participants: [],
    occurredAt: hoursAgo(68),
  }),
];

const FIRST_MEMORY = [
  "<memory>",
  "## Commitments and deadlines",
  "- The Kestrel cut-over is on 3 March [E1]",
  "## Role and team",
  "- Runs the weekly platform standup on Mondays [M1]",
  "- Reviews every ledger pull request before it merges [P1]",
  "- Mentors two new engineers on the platform team [N1]",
  "</memory>",
].join("\n");

/** A subject with the first memory above, backdated so that what is ingested next is newer. */
async function subjectWithFirstMemory() {
  const userId = newUserId("e2e-fresh");
  used.push(userId);
  const clock = new FakeClock(new Date(Date.now() + 365 * 24 * 3600_000));
  await setAgentClock(userId, clock);
  await ingestSettled(userId, BEFORE);
  const match = await endUserIdOf(userId);
  const script = await llm.script(match, [{ toolCalls: [RECENT] }, { text: FIRST_MEMORY }], {
    role: "generator",
  });
  const first = await firstMemory(userId);
  await script.assertComplete();
  expect(first.memory).toContain("The Kestrel cut-over is on 3 March");
  await backdateMemory(userId, new Date());
  return { userId, clock, match };
}

/** The newer item: someone who is not on the old item, so only an explicit link can relate the two. */
const moved = (overrides: Partial<ItemPayload>): ItemPayload =>
  item({
    externalId: "kestrel-moved",
    title: "Heads-up",
    body: "Update: the Kestrel cut-over moved to 10 March.",
    author: "Mara Quinn <mara@northwind.test>",
    participants: [],
    occurredAt: hoursAgo(1),
    ...overrides,
  });

async function refreshAfter(
  subject: { userId: string; clock: FakeClock; match: string },
  newer: ItemPayload,
) {
  const [movedId] = await ingestSettled(subject.userId, [newer]);
  const sinceSeq = Math.max(0, ...(await llm.requests(subject.match)).map((r) => r.seq));
  await forcedRefresh(subject.userId, subject.clock);
  const generator = (await llm.requests(subject.match, { role: "generator" })).filter(
    (r) => r.seq > sinceSeq,
  );
  const judge = (await llm.requests(subject.match, { role: "judge" })).filter((r) => r.seq > sinceSeq);
  const served = await memoryJson(subject.userId);
  const runs = await runsOf(subject.userId);
  const texts = served.statements.map((s) => s.text);
  return { movedId: movedId!, generator, judge, served, texts, runs };
}

describe("a refresh after a newer item moves a date", () => {
  it("no longer serves the old date when the newer item is a reply to the one the statement cites", async () => {
    const s = await subjectWithFirstMemory();
    const r = await refreshAfter(
      s,
      moved({ links: [{ source: "gmail", externalId: "kestrel-date", kind: "reply" }] }),
    );

    // The copying generator kept the old line; the service sent it to the judge next to the reply.
    expect(r.generator.at(-1)?.neutral?.system).toContain("- The Kestrel cut-over is on 3 March [E1]");
    const judged = JSON.stringify(r.judge.at(-1)?.neutral?.messages ?? []);
    expect(judged).toMatch(/cites=\\"E1\\" related=\\"E2\\">The Kestrel cut-over is on 3 March</);
    expect(judged).toContain('newer=\\"true\\"');

    expect(r.texts.join("\n")).not.toContain("3 March");
    expect(r.texts).toContain("Update: the Kestrel cut-over moved to 10 March");
    expect(r.texts).toEqual(
      expect.arrayContaining([
        "Runs the weekly platform standup on Mondays",
        "Reviews every ledger pull request before it merges",
        "Mentors two new engineers on the platform team",
      ]),
    );
    const refresh = r.runs.find((run) => run.superseded !== null)!;
    expect(refresh).toMatchObject({ status: "succeeded", trigger: expect.any(String) });
    expect(refresh.superseded).toEqual([
      {
        statementId: expect.any(String),
        section: "Commitments and deadlines",
        text: "The Kestrel cut-over is on 3 March",
        byItemId: r.movedId,
        handled: "dropped",
      },
    ]);
    expect(refresh.salvaged?.statements).toEqual([
      expect.objectContaining({
        text: "The Kestrel cut-over is on 3 March",
        cause: "superseded",
        supersededBy: r.movedId,
      }),
    ]);
  });

  it("no longer serves the old date when the newer item @-mentions the one the statement cites", async () => {
    const s = await subjectWithFirstMemory();
    const r = await refreshAfter(
      s,
      moved({ body: "Update on @[gmail:kestrel-date]: the Kestrel cut-over moved to 10 March." }),
    );
    expect(r.texts.join("\n")).not.toContain("3 March");
    expect(r.runs.find((run) => run.superseded !== null)?.superseded).toEqual([
      expect.objectContaining({ text: "The Kestrel cut-over is on 3 March", byItemId: r.movedId }),
    ]);
  });

  it("keeps serving the old date when nothing relates the newer item to it (the carried line skips the judge)", async () => {
    const s = await subjectWithFirstMemory();
    const r = await refreshAfter(s, moved({}));
    expect(r.texts).toContain("The Kestrel cut-over is on 3 March");
    expect(r.runs.every((run) => run.superseded === null)).toBe(true);
    const judged = JSON.stringify(r.judge.map((j) => j.neutral?.messages ?? []));
    expect(judged).not.toContain("is on 3 March");
  });
});
