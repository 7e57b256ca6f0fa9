import {
  createExecutionContext,
  createScheduledController,
  listDurableObjectIds,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { MemoryAgent } from "../src/do/memory-agent";
import type { Env } from "../src/env";
import worker from "../src/index";
import type { MemoryAgents } from "../src/memory/memory-agents";
import { spreadOffset, sweep } from "../src/memory/sweep";
import { newUserId } from "./support/auth";
import { item } from "./support/items";
import { agentStub, ingestSettled, seedMemory, services, statement } from "./support/memory-agent";

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

afterEach(async () => {
  // The sweep may hand other files' subjects to objects of this file: leave no alarm behind.
  for (const id of await listDurableObjectIds(env.MEMORY_AGENT)) {
    await runInDurableObject(env.MEMORY_AGENT.get(id), async (_agent: MemoryAgent, state) => {
      await state.storage.deleteAlarm();
    });
  }
  vi.restoreAllMocks();
});

/** A user with one item and a fresh agent (the ingest notification is forgotten). */
async function subject() {
  const userId = newUserId();
  const [id] = await ingestSettled(userId, [item({ externalId: "a" })]);
  await agentStub(userId).forget();
  return { userId, itemId: id! };
}

async function checkedAt(subjectId: string): Promise<Date | null> {
  const result = await services().db.execute(
    sql`select checked_at::text as checked_at from memories where subject_id = ${subjectId}`,
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
    await services().db.execute(sql`insert into memories (subject_id) values (${nothing})`);

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

    expect((await agentStub(unchanged.userId).status()).subjectId).toBeNull();
    expect((await agentStub(fresh.userId).status()).subjectId).toBeNull();
    expect((await agentStub(nothing).status()).subjectId).toBeNull();
    for (const { userId } of [changed, missing]) {
      const status = await agentStub(userId).status();
      expect(status).toMatchObject({ subjectId: userId, phase: "scheduled" });
      const offset = Date.parse(status.nextRunAt!) - started;
      expect(offset).toBeGreaterThanOrEqual(spreadOffset(userId, DAY) - 1000);
      expect(offset).toBeLessThan(DAY);
    }
    expect(await services().memoryStore.runs(unchanged.userId, { limit: 5 })).toMatchObject({
      entries: [{ trigger: "manual" }],
    });

    const line = logs.mock.calls.map((c) => String(c[0])).find((l) => l.includes('"msg":"sweep"'));
    const report = JSON.parse(line!) as Record<string, unknown>;
    expect(report).toMatchObject({ level: "info", msg: "sweep", cron: "0 3 * * *", complete: true });
    expect(report.checked).toBeGreaterThanOrEqual(4);
    expect(report.skipped).toBeGreaterThanOrEqual(2);
    expect(report.dispatched).toBeGreaterThanOrEqual(2);
  });

  it("stops at its dispatch budget and page bound, and says where to resume", async () => {
    const subjects = [await subject(), await subject(), await subject()];
    for (const s of subjects) await services().memoryEvents.materialChanged([s.userId]);
    const dispatched: string[] = [];
    const agents: MemoryAgents = {
      requestRefresh: async (subjectId) => {
        dispatched.push(subjectId);
        return { status: "scheduled", runAt: Date.now() };
      },
      forceRefresh: async () => ({ status: "refused", retryAfterMs: 0 }),
      status: async () => {
        throw new Error("not used");
      },
      forget: async () => {},
    };
    const { memoryStore, clock } = services();
    const options = { ttlMs: YEAR_HOURS * 3600_000, spreadMs: DAY, concurrency: 4 };

    const limited = await sweep(
      { store: memoryStore, agents, clock },
      { ...options, pageSize: 2, maxDispatch: 1, maxPages: 50 },
    );
    expect(limited).toMatchObject({ dispatched: 1, complete: false });
    expect(limited.resumeAfter).toBe(dispatched[0]);

    const paged = await sweep(
      { store: memoryStore, agents, clock },
      { ...options, pageSize: 1, maxDispatch: 100, maxPages: 2 },
    );
    expect(paged.pages).toBe(2);
    expect(paged.checked).toBe(2);
    expect(paged.complete).toBe(false);
  });
});
