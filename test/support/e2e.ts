import { sql } from "drizzle-orm";
import {
  type ApiItem,
  DEMO_USER_IDS,
  type DemoUserId,
  type DemoWorkspace,
  demoWorkspace,
} from "../../fixtures/demo-workspace";
import type { RunRecord, VersionSummary } from "../../src/memory/memory-reader";
import { newUserId } from "./auth";
import { FakeClock } from "./fakes/fake-clock";
import { call, json } from "./items";
import { fetchSettled, ingestSettled, overrideAgentOf, runAlarm, services, testDb } from "./memory-agent";
import { contentWords, wordForms } from "./node/fake-llm/text";
import { registerMembers } from "./workspaces";

export const MINUTE = 60_000;

export interface ServedCitation {
  id: string;
  kind: string | null;
  title: string | null;
  occurredAt: string | null;
}

export interface MemoryJson {
  version: string;
  generatedAt: string;
  stale: boolean;
  statements: {
    id: string;
    section: string;
    text: string;
    citations: ServedCitation[];
    since: string | null;
    firstStated: string;
  }[];
  citations: ServedCitation[];
}

export interface MemoryMarkdown {
  memory: string;
  version: string;
  generatedAt: string;
  stale: boolean;
  citations: ServedCitation[];
}

/** The run ledger entries as GET /memory/runs serves them (dates as strings). */
export type ServedRun = Omit<RunRecord, "queuedAt" | "startedAt" | "finishedAt"> & {
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
};

export interface ServedItem {
  id: string;
  title: string | null;
  body: string;
  author: string | null;
  participants: string[];
}

/** Gives the agent a clock of the test's (nothing else: its generator is the real one). */
export async function setAgentClock(subjectKey: string, clock: FakeClock): Promise<void> {
  overrideAgentOf(subjectKey, { clock });
}

/** Gives the agent other settings (e.g. a shorter LLM timeout); everything else stays real. */
export async function setAgentEnv(subjectKey: string, overrides: Record<string, string>): Promise<void> {
  overrideAgentOf(subjectKey, { env: overrides });
}

export interface DemoSubject {
  /** The subject under test (demo user `key`). */
  userId: string;
  userIds: Record<DemoUserId, string>;
  workspace: DemoWorkspace;
  clock: FakeClock;
  now: Date;
}

/**
 * Fresh ids for the five demo users; the subject's agent gets a clock a year ahead; then every user's
 * items are ingested (`owners`: only some of them, for tests that need less). Push the returned ids to
 * the test's alarm clean-up list: ingest notifies the agents of everyone an item is shared with.
 */
export async function demoSubject(
  key: DemoUserId,
  options: { owners?: readonly DemoUserId[]; extra?: Partial<Record<DemoUserId, ApiItem[]>> } = {},
): Promise<DemoSubject> {
  const userIds = Object.fromEntries(DEMO_USER_IDS.map((k) => [k, newUserId(`e2e-${k}`)])) as Record<
    DemoUserId,
    string
  >;
  const now = new Date();
  const workspace = demoWorkspace(now, { userIds });
  const clock = new FakeClock(new Date(now.getTime() + 365 * 24 * 60 * MINUTE));
  const userId = userIds[key];
  await setAgentClock(userId, clock);
  await registerMembers(...Object.values(userIds));
  for (const owner of options.owners ?? DEMO_USER_IDS) {
    const items = [...workspace.itemsByOwner[owner], ...(options.extra?.[owner] ?? [])];
    for (let i = 0; i < items.length; i += 100) await ingestSettled(userIds[owner], items.slice(i, i + 100));
  }
  return { userId, userIds, workspace, clock, now };
}

/** GET /memory answers 202 and schedules a first run; the alarm runs it; GET /memory then answers 200. */
export async function firstMemory(userId: string): Promise<MemoryMarkdown> {
  const pending = await fetchSettled(userId, "GET", "/memory");
  if (pending.status !== 202) throw new Error(`GET /memory answered ${pending.status}, not 202`);
  if (!(await runAlarm(userId))) throw new Error("no alarm was set for the first run");
  const res = await call(userId, "GET", "/memory");
  if (res.status !== 200) throw new Error(`GET /memory after the run: ${res.status} ${await res.text()}`);
  return json<MemoryMarkdown>(res);
}

export async function memoryJson(userId: string): Promise<MemoryJson> {
  const res = await call(userId, "GET", "/memory?format=json");
  if (res.status !== 200) throw new Error(`GET /memory?format=json: ${res.status} ${await res.text()}`);
  return json<MemoryJson>(res);
}

export async function runsOf(userId: string): Promise<ServedRun[]> {
  const res = await call(userId, "GET", "/memory/runs?limit=100");
  if (res.status !== 200) throw new Error(`GET /memory/runs: ${res.status}`);
  return (await json<{ runs: ServedRun[] }>(res)).runs;
}

export async function versionsOf(userId: string): Promise<(VersionSummary & { createdAt: string })[]> {
  const res = await call(userId, "GET", "/memory/versions?limit=100");
  if (res.status !== 200) throw new Error(`GET /memory/versions: ${res.status}`);
  return (await json<{ versions: (VersionSummary & { createdAt: string })[] }>(res)).versions;
}

/** GET /items/:id as `userId`: the item, or null when it is not visible (404). */
export async function itemAs(userId: string, id: string): Promise<ServedItem | null> {
  const res = await call(userId, "GET", `/items/${id}`);
  if (res.status === 404) return null;
  if (res.status !== 200) throw new Error(`GET /items/${id}: ${res.status}`);
  return json<ServedItem>(res);
}

/** The statement's content words that none of the items contains (naive stems allowed). */
export function wordsMissingFrom(statement: string, items: ServedItem[]): string[] {
  const known = new Set<string>();
  for (const item of items) {
    const text = [item.title ?? "", item.author ?? "", item.participants.join(" "), item.body].join("\n");
    for (const word of contentWords(text)) for (const form of wordForms(word)) known.add(form);
  }
  return [...new Set(contentWords(statement))].filter((w) => !wordForms(w).some((f) => known.has(f)));
}

/**
 * Forced refresh with the agent's clock past the min interval: POST /memory/refresh answers 202 and
 * schedules a run, which the alarm then runs.
 */
export async function forcedRefresh(userId: string, clock: FakeClock): Promise<void> {
  clock.advance(services().config.memory.minIntervalMs + MINUTE);
  const res = await fetchSettled(userId, "POST", "/memory/refresh");
  if (res.status !== 202) throw new Error(`POST /memory/refresh: ${res.status} ${await res.text()}`);
  if (!(await runAlarm(userId))) throw new Error("no alarm was set for the refresh");
}

/**
 * The agent's clock runs a year ahead, so its first memory is stamped a year ahead, while the database
 * stamps items with its own (real) clock: set the memory's generation time back to `at`, as if both
 * clocks agreed, so that what arrives afterwards is "new since the previous memory".
 */
export async function backdateMemory(userId: string, at: Date): Promise<void> {
  await testDb().execute(
    sql`update memories set generated_at = ${at.toISOString()}::timestamptz where subject_id = ${userId}`,
  );
}
