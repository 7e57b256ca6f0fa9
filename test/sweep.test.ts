import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  listDurableObjectIds,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FAN_OUT_LIMITS } from "../src/cron/cron-sweep-handler";
import { consumeSweepBatch } from "../src/cron/sweep-consumer";
import { createSweepCursorStore } from "../src/db/sweep-cursor";
import type { MemoryAgent } from "../src/do/memory-agent";
import { DEFAULT_WORKSPACE, teamKey } from "../src/domain/workspaces";
import type { Env } from "../src/env";
import worker from "../src/index";
import type { MemoryAgents } from "../src/memory/memory-agents-port";
import { type SweepMessage, spreadOffset } from "../src/memory/sweep-fanout";
import { sweep } from "../src/memory/sweep-plan";
import { newUserId } from "./support/auth";
import { item } from "./support/items";
import {
  agentStub,
  futureClock,
  ingestSettled,
  overrideAgentOf,
  seedMemory,
  services,
  statement,
  testDb,
} from "./support/memory-agent";
import { registerMembers } from "./support/workspaces";

const YEAR_HOURS = 365 * 24;
const DAY = 24 * 3600_000;
/**
 * The database is shared with every other test file, so these sweeps use a freshness window of a year:
 * only the (two-year-old) memories seeded here and memory-less rows are candidates, and nobody else's
 * fresh-enough memory gets its checked_at bumped.
 */
const sweepEnv = () =>
  ({ ...(env as Env), MEMORY_TTL_HOURS: String(YEAR_HOURS), SWEEP_SPREAD_MINUTES: "1440" }) as Env;
const yearsAgo = (years: number, hours = 0) => new Date(Date.now() - years * 365 * DAY - hours * 3600_000);

/** Deletes the alarm of every agent object in `ids`. */
async function deleteAlarms(ids: DurableObjectId[]): Promise<void> {
  for (const id of ids) {
    await runInDurableObject(env.MEMORY_AGENT.get(id), async (_agent: MemoryAgent, state) => {
      await state.storage.deleteAlarm();
    });
  }
}

// Leave no alarm behind. Entering an object costs a few milliseconds, and the workerd holds every object of the
// files before this one (hundreds): after each test, the objects it created; after the file, every object, since a
// sweep also hands other files' subjects (memory-less ones) to their agents, with a start up to a day away.
let before = new Set<string>();
beforeEach(async () => {
  before = new Set((await listDurableObjectIds(env.MEMORY_AGENT)).map(String));
});
afterEach(async () => {
  await deleteAlarms((await listDurableObjectIds(env.MEMORY_AGENT)).filter((id) => !before.has(String(id))));
  vi.restoreAllMocks();
});
afterAll(async () => deleteAlarms(await listDurableObjectIds(env.MEMORY_AGENT)));

/** A user with one item and a fresh agent (the ingest notification is forgotten). */
async function subject() {
  const userId = newUserId();
  const [id] = await ingestSettled(userId, [item({ externalId: "a" })]);
  await agentStub(userId).forget(0);
  return { userId, itemId: id! };
}

async function checkedAt(subjectKey: string): Promise<Date | null> {
  const result = await testDb().execute(
    sql`select checked_at::text as checked_at from memories where subject_id = ${subjectKey}`,
  );
  const value = result.rows[0]?.checked_at;
  return typeof value === "string" ? new Date(value) : null;
}

describe("the daily sweep", () => {
  it("bumps checked_at of unchanged subjects without a run, and hands changed ones to their agents, spread out", async () => {
    const unchanged = await subject();
    await seedMemory(unchanged.userId, [statement("Work", "Leads payments", unchanged.itemId)], {
      generatedAt: yearsAgo(2),
      materialChangedAt: yearsAgo(2, 5),
    });
    const changed = await subject();
    await seedMemory(changed.userId, [statement("Work", "Leads payments", changed.itemId)], {
      generatedAt: yearsAgo(2),
      materialChangedAt: yearsAgo(1),
    });
    const missing = await subject();
    const fresh = await subject();
    await seedMemory(fresh.userId, [statement("Work", "Leads payments", fresh.itemId)], {
      generatedAt: yearsAgo(0, 2),
      materialChangedAt: yearsAgo(0, 1),
    });
    const nothing = newUserId();
    // A row with neither memory nor material (e.g. left by a read of a user with no items).
    await testDb().execute(sql`insert into memories (subject_id) values (${nothing})`);

    const logs = vi.spyOn(console, "log");
    const started = Date.now();
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: started, cron: "0 3 * * *" }),
      sweepEnv(),
      ctx,
    );
    await waitOnExecutionContext(ctx);

    expect((await checkedAt(unchanged.userId))?.getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect((await checkedAt(nothing))?.getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect(await checkedAt(changed.userId)).toBeNull();
    expect(await checkedAt(fresh.userId)).toBeNull();

    expect((await agentStub(unchanged.userId).status()).subjectKey).toBeNull();
    expect((await agentStub(fresh.userId).status()).subjectKey).toBeNull();
    expect((await agentStub(nothing).status()).subjectKey).toBeNull();
    for (const { userId } of [changed, missing]) {
      const status = await agentStub(userId).status();
      expect(status).toMatchObject({ subjectKey: userId, phase: "scheduled" });
      const offset = Date.parse(status.nextRunAt!) - started;
      expect(offset).toBeGreaterThanOrEqual(spreadOffset(userId, DAY) - 1000);
      expect(offset).toBeLessThan(DAY);
    }
    expect(await services().memoryReader.runs(unchanged.userId, { limit: 5 })).toMatchObject({
      entries: [{ trigger: "manual" }],
    });

    const report = logLine(logs, "sweep");
    expect(report).toMatchObject({ level: "info", msg: "sweep", cron: "0 3 * * *", complete: true });
    expect(report.checked).toBeGreaterThanOrEqual(4);
    expect(report.skipped).toBeGreaterThanOrEqual(2);
    expect(report.dispatched).toBeGreaterThanOrEqual(2);
  });

  it("covers team subjects: a team whose shared items changed is handed to its own agent", async () => {
    const owner = newUserId("owner");
    const teamId = `sweep-${crypto.randomUUID().slice(0, 8)}`;
    const team = teamKey(DEFAULT_WORKSPACE, teamId);
    await registerMembers(owner);
    await services().workspaces.putTeam(
      DEFAULT_WORKSPACE,
      teamId,
      { name: "Sweep", members: [owner] },
      new Date(),
    );
    const [shared] = await ingestSettled(owner, [item({ externalId: "t", sharedWith: [`team:${teamId}`] })]);
    // The ingest marked the team (and its member) as having new material.
    const marked = await testDb().execute(
      sql`select subject_id from memories where subject_id in (${team}, ${owner}) and material_changed_at is not null`,
    );
    expect(marked.rows.map((r) => r.subject_id).sort()).toEqual([owner, team].sort());
    await agentStub(team).forget(0);
    await seedMemory(team, [statement("Projects", "Runs the sweep", shared!)], {
      generatedAt: yearsAgo(2),
      materialChangedAt: yearsAgo(1),
    });

    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.now(), cron: "0 3 * * *" }),
      sweepEnv(),
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(await agentStub(team).status()).toMatchObject({ subjectKey: team, phase: "scheduled" });
  });

  it("with a small dispatch budget, enqueues the rest through the real queue, whose consumer schedules their agents", async () => {
    // Users with material and no memory yet, and idle agents: only the sweep can schedule them.
    const subjects = [await subject(), await subject(), await subject()];

    const logs = vi.spyOn(console, "log");
    const started = Date.now();
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: started, cron: "0 3 * * *" }),
      { ...sweepEnv(), SWEEP_MAX_DISPATCH: "1" } as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);

    const report = logLine(logs, "sweep");
    expect(report).toMatchObject({ dispatched: 1, enqueueFailed: 0 });
    expect(report.enqueued).toBeGreaterThanOrEqual(2);
    expect(report.messages).toBeGreaterThanOrEqual(1);
    expect(report.sends).toBeGreaterThanOrEqual(1);
    // The queue delivers to the worker's own `queue` handler; wait for it, not for any alarm.
    await vi.waitFor(
      async () => {
        for (const { userId } of subjects) {
          const status = await agentStub(userId).status();
          expect(status).toMatchObject({ subjectKey: userId, phase: "scheduled" });
          expect(Date.parse(status.nextRunAt!) - started).toBeGreaterThanOrEqual(
            spreadOffset(userId, DAY) - 1000,
          );
        }
      },
      { timeout: 15_000, interval: 100 },
    );
  });

  it("saves where a bounded invocation stopped, and the next invocation goes on from there", async () => {
    const subjects = [await subject(), await subject(), await subject()];
    const handed: string[] = [];
    const agents: MemoryAgents = {
      requestRefresh: async (subjectKey) => {
        handed.push(subjectKey);
        return { status: "scheduled", runAt: Date.now() };
      },
      forceRefresh: async () => ({ status: "refused", retryAfterMs: 0 }),
      status: async () => {
        throw new Error("not used");
      },
      forget: async () => {},
    };
    const queue = {
      send: async (messages: SweepMessage[]) => void handed.push(...messages.flatMap((m) => m.subjectKeys)),
    };
    // A cursor of its own: other sweeps (and test files) keep theirs.
    const cursor = createSweepCursorStore(testDb(), `test-${crypto.randomUUID()}`);
    const { sweepSource, clock } = services();
    const deps = { store: sweepSource, agents, queue, cursor, clock };
    const options = {
      ttlMs: YEAR_HOURS * 3600_000,
      spreadMs: DAY,
      concurrency: 4,
      maxDispatch: 1,
      fanOut: { ...FAN_OUT_LIMITS, idsPerMessage: 1 },
      maxSubjectIdLength: 255,
    };

    // pageSize 1: one page (its two attempts, its worst-case send, the final send and the save's two
    // attempts) fits in the cursor load plus 6 round trips.
    const first = await sweep(deps, { ...options, pageSize: 1, maxRoundTrips: 7 });
    expect(first).toMatchObject({ pages: 1, checked: 1, complete: false, resumedFrom: null });
    expect(first.resumeAfter).not.toBeNull();
    expect(await cursor.load()).toBe(first.resumeAfter);

    handed.length = 0;
    const second = await sweep(deps, { ...options, pageSize: 1, maxRoundTrips: 7 });
    expect(second).toMatchObject({ pages: 1, resumedFrom: first.resumeAfter, complete: false });
    expect(second.resumeAfter! > first.resumeAfter!).toBe(true);
    for (const id of handed) expect(id > first.resumeAfter!).toBe(true);
    expect(await cursor.load()).toBe(second.resumeAfter);

    handed.length = 0;
    const rest = await sweep(deps, { ...options, pageSize: 10_000, maxRoundTrips: 1000 });
    expect(rest).toMatchObject({ resumedFrom: second.resumeAfter, complete: true, resumeAfter: null });
    expect(await cursor.load()).toBeNull();
    // Every one of ours past the cursor was handed over (ours may sort before it: then the next day's).
    for (const { userId } of subjects) if (userId > second.resumeAfter!) expect(handed).toContain(userId);
  });
});

describe("the sweep queue's consumer", () => {
  const message = (body: unknown, attempts = 1) => ({
    id: crypto.randomUUID(),
    timestamp: new Date(),
    attempts,
    body,
  });

  it("hands every subject of a message to its agent with the sweep's spread start, then acks it", async () => {
    const a = await subject();
    const b = await subject();
    const sweptAt = Date.now();
    const msg = message({ subjectKeys: [a.userId, b.userId], sweptAt, spreadMs: DAY });
    const batch = createMessageBatch<SweepMessage>("unified-memory-sweep", [msg]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env as Env, ctx);
    const result = await getQueueResult(batch, ctx);

    expect(result).toMatchObject({ outcome: "ok", explicitAcks: [msg.id], retryMessages: [] });
    for (const { userId } of [a, b]) {
      const status = await agentStub(userId).status();
      expect(status).toMatchObject({ subjectKey: userId, phase: "scheduled" });
      expect(Date.parse(status.nextRunAt!)).toBe(sweptAt + spreadOffset(userId, DAY));
    }
  });

  it("acks and logs a malformed message instead of retrying it, and still handles the valid one beside it", async () => {
    const a = await subject();
    // Its agent's clock runs a year ahead, so the alarm this schedules (spread 0) cannot fire before the check.
    overrideAgentOf(a.userId, { clock: futureClock() });
    const bad = message({ subjectKeys: "everyone", sweptAt: "yesterday" });
    const good = message({ subjectKeys: [a.userId], sweptAt: Date.now(), spreadMs: 0 });
    const batch = createMessageBatch<SweepMessage>("unified-memory-sweep", [bad, good]);
    const logs = vi.spyOn(console, "log");
    const warnings = vi.spyOn(console, "warn");
    const ctx = createExecutionContext();
    await worker.queue(batch, env as Env, ctx);
    const result = await getQueueResult(batch, ctx);

    expect(result.explicitAcks.sort()).toEqual([bad.id, good.id].sort());
    expect(result.retryMessages).toEqual([]);
    expect(logLine(warnings, "sweep_message_malformed")).toMatchObject({ level: "warn", messageId: bad.id });
    expect(logLine(logs, "sweep_batch")).toMatchObject({ messages: 2, malformed: 1, dispatched: 1 });
    expect((await agentStub(a.userId).status()).phase).toBe("scheduled");
  });

  it("retries a message whose subjects could not all be handed over", async () => {
    const requested: string[] = [];
    const agents = {
      requestRefresh: async (subjectKey: string) => {
        requested.push(subjectKey);
        if (subjectKey === "down") throw new Error("object unavailable");
        return { status: "scheduled" as const, runAt: 0 };
      },
    };
    const failing = message({ subjectKeys: ["up", "down"], sweptAt: 0, spreadMs: 0 }, 3);
    const fine = message({ subjectKeys: ["up-too"], sweptAt: 0, spreadMs: 0 });
    const batch = createMessageBatch<SweepMessage>("unified-memory-sweep", [failing, fine]);
    const report = await consumeSweepBatch(batch, agents);
    const result = await getQueueResult(batch, createExecutionContext());

    expect(requested.sort()).toEqual(["down", "up", "up-too"]);
    expect(report).toMatchObject({ messages: 2, dispatched: 2, failed: 1, retried: 1 });
    expect(result.explicitAcks).toEqual([fine.id]);
    expect(result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual([failing.id]);
  });
});

function logLine(logs: { mock: { calls: unknown[][] } }, msg: string): Record<string, unknown> {
  const line = logs.mock.calls.map((c) => String(c[0])).find((l) => l.includes(`"msg":"${msg}"`));
  expect(line).toBeDefined();
  return JSON.parse(line!) as Record<string, unknown>;
}
