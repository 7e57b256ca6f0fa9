/**
 * The freshness scenario the end-to-end tests share: a subject whose first memory (scripted through the
 * fake LLM) states a date, "The Kestrel cut-over is on 3 March" [E1], and three unrelated lines; then a
 * refresh after a newer item, with the fake's reference policy as the generator (it copies every previous
 * bullet) and its judge (it calls a statement superseded when a newer item shown with it gives another
 * date).
 */
import { expect } from "vitest";
import { endUserIdOf } from "../../src/agent/end-user";
import { newUserId } from "./auth";
import { backdateMemory, firstMemory, forcedRefresh, memoryJson, runsOf, setAgentClock } from "./e2e";
import { fakeLlm } from "./fake-llm-control";
import { FakeClock } from "./fakes/fake-clock";
import { type ItemPayload, item } from "./items";
import { ingestSettled } from "./memory-agent";

const llm = fakeLlm();

const RECENT = { name: "recent_activity", input: { since: "2000-01-01T00:00:00Z" } };
export const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

export const BEFORE = [
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

export const FIRST_MEMORY = [
  "<memory>",
  "## Commitments and deadlines",
  "- The Kestrel cut-over is on 3 March [E1]",
  "## Role and team",
  "- Runs the weekly platform standup on Mondays [M1]",
  "- Reviews every ledger pull request before it merges [P1]",
  "- Mentors two new engineers on the platform team [N1]",
  "</memory>",
].join("\n");

export interface FreshnessSubject {
  userId: string;
  clock: FakeClock;
  /** The end-user id every generator and judge request of the subject carries. */
  match: string;
}

/**
 * A subject with the first memory above, backdated so that what is ingested next is newer; its user id is
 * pushed to `used` (the caller clears its alarm after the test). `settle` waits for what ingest started
 * elsewhere (e.g. the embeddings queue) before the first run.
 */
export async function subjectWithFirstMemory(
  used: string[],
  settle: (userId: string, ids: string[]) => Promise<void> = async () => {},
): Promise<FreshnessSubject> {
  const userId = newUserId("e2e-fresh");
  used.push(userId);
  const clock = new FakeClock(new Date(Date.now() + 365 * 24 * 3600_000));
  await setAgentClock(userId, clock);
  await settle(userId, await ingestSettled(userId, BEFORE));
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

/**
 * The newer item: someone who is not on the old item, so only an explicit link (or, with an embedder, its
 * words: it restates the cut-over with another date) can relate the two.
 */
export const moved = (overrides: Partial<ItemPayload>): ItemPayload =>
  item({
    externalId: "kestrel-moved",
    title: "Heads-up",
    body: "Update: the Kestrel cut-over moved to 10 March.",
    author: "Mara Quinn <mara@northwind.test>",
    participants: [],
    occurredAt: hoursAgo(1),
    ...overrides,
  });

/** Ingests `newer`, runs a refresh, and answers what the LLM was asked and what is served after it. */
export async function refreshAfter(
  subject: FreshnessSubject,
  newer: ItemPayload,
  settle: (userId: string, ids: string[]) => Promise<void> = async () => {},
) {
  const [movedId] = await ingestSettled(subject.userId, [newer]);
  await settle(subject.userId, [movedId!]);
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
