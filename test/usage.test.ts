/**
 * The usage ledger: every run's ending adds its run and tokens per model to usage_daily in the same batch, so
 * the usage matches the runs ledger exactly; GET /me/usage and GET /usage show it per day with an estimated
 * cost from MODEL_PRICES; and a daily budget ends a run before its LLM call, with the ledger saying so.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../src/domain/audit";
import type { RunStats } from "../src/domain/generation";
import type { Env } from "../src/env";
import worker from "../src/index";
import { bearer, newUserId, READ_WRITE } from "./support/auth";
import { FakeClock } from "./support/fakes/fake-clock";
import { item, warmUpWorker } from "./support/items";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  ingestSettled,
  installAgent,
  overrideAgentOf,
  runAlarm,
  statement,
  testDb,
} from "./support/memory-agent";

beforeAll(warmUpWorker);
const used: string[] = [];
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

const DAY = "2027-06-15";
const PRICES = JSON.stringify({
  "gen-model": { input: 3, output: 15 },
  "judge-model": { input: 1, output: 5 },
});

const stats = (usage: RunStats["usage"]): RunStats => ({
  turns: 2,
  toolCalls: 1,
  inputTokens: Object.values(usage).reduce((n, u) => n + u.inputTokens, 0),
  outputTokens: Object.values(usage).reduce((n, u) => n + u.outputTokens, 0),
  usage,
});

/** GET with the worker's settings plus `settings` (a fresh env object is parsed afresh). */
async function get(
  userId: string,
  path: string,
  settings: Record<string, string>,
  scopes: readonly string[] = READ_WRITE,
) {
  const ctx = createExecutionContext();
  const request = new Request(`http://local${path}`, { headers: await bearer(userId, scopes) });
  const patched = { ...(env as Env), ...settings } as Env;
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, patched, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function subject(label: string, agentSettings: Record<string, string> = {}) {
  const userId = newUserId(label);
  used.push(userId);
  const generator = new FakeGenerator();
  const clock = new FakeClock(`${DAY}T08:00:00Z`);
  await installAgent(userId, generator, clock);
  overrideAgentOf(userId, { env: agentSettings });
  const [id] = await ingestSettled(userId, [item({ externalId: `${label}-1` })]);
  return { userId, generator, clock, itemId: id! };
}

/** Asks for a run and runs it (the agent's clock moves two hours first, past the minimum interval). */
async function run(userId: string, clock: FakeClock): Promise<void> {
  clock.advance(2 * 3600_000);
  await agentStub(userId).requestRefresh(userId, "manual");
  expect(await runAlarm(userId)).toBe(true);
}

describe("the usage ledger", () => {
  it("matches the runs ledger exactly, per day and model, and is priced in GET /me/usage", async () => {
    const { userId, generator, clock, itemId } = await subject("usage");
    const accepted = (usage: RunStats["usage"]) => ({
      kind: "accept" as const,
      statements: [statement("Work", "Works on the ledger", itemId)],
      stats: stats(usage),
    });
    generator.push(
      accepted({
        "gen-model": { inputTokens: 1200, outputTokens: 300, calls: 3 },
        "judge-model": { inputTokens: 400, outputTokens: 50, calls: 1 },
      }),
      accepted({
        "gen-model": { inputTokens: 500, outputTokens: 100, calls: 1 },
        "other-model": { inputTokens: 7, outputTokens: 3, calls: 1 },
      }),
      { kind: "reject", reason: "unsupported" },
    );
    await run(userId, clock);
    await run(userId, clock);
    await run(userId, clock);

    const db = testDb();
    const fromRuns = await db.execute<{
      day: string;
      model: string;
      input: string;
      output: string;
      calls: string;
    }>(sql`
      select to_char((started_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, u.key as model,
             sum((u.value->>'inputTokens')::bigint) as input, sum((u.value->>'outputTokens')::bigint) as output,
             sum((u.value->>'calls')::bigint) as calls
      from memory_runs, jsonb_each(usage) u where subject_id = ${userId} group by 1, 2 order by 1, 2`);
    const fromUsage = await db.execute<{
      day: string;
      model: string;
      input: string;
      output: string;
      calls: string;
    }>(sql`
      select to_char(day, 'YYYY-MM-DD') as day, model, input_tokens as input, output_tokens as output, llm_calls as calls
      from usage_daily where subject_id = ${userId} and model <> '' order by 1, 2`);
    expect(
      fromUsage.rows.map((r) => [r.day, r.model, Number(r.input), Number(r.output), Number(r.calls)]),
    ).toEqual(fromRuns.rows.map((r) => [r.day, r.model, Number(r.input), Number(r.output), Number(r.calls)]));
    expect(fromUsage.rows).toHaveLength(3);
    const runs = await db.execute<{ status: string; n: string }>(
      sql`select status, count(*) as n from memory_runs where subject_id = ${userId} group by 1 order by 1`,
    );
    expect(runs.rows.map((r) => [r.status, Number(r.n)])).toEqual([
      ["rejected", 1],
      ["succeeded", 2],
    ]);

    const res = await get(userId, `/me/usage?since=${DAY}&until=${DAY}`, { MODEL_PRICES: PRICES });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { days: Record<string, unknown>[] };
    expect(body.days).toEqual([
      {
        date: DAY,
        runs: 3,
        runsByOutcome: { succeeded: 2, rejected: 1, failed: 0, budgetExhausted: 0 },
        llmCalls: 6,
        inputTokens: 2107,
        outputTokens: 453,
        byModel: {
          "gen-model": { inputTokens: 1700, outputTokens: 400, calls: 4, estimatedCostUsd: 0.0111 },
          "judge-model": { inputTokens: 400, outputTokens: 50, calls: 1, estimatedCostUsd: 0.00065 },
          "other-model": { inputTokens: 7, outputTokens: 3, calls: 1, estimatedCostUsd: null },
        },
        reads: 0,
        estimatedCostUsd: 0.01175,
      },
    ]);

    const admin = newUserId("usage-admin");
    const all = await get(admin, `/usage?since=${DAY}&until=${DAY}`, { MODEL_PRICES: PRICES }, [
      ...READ_WRITE,
      "admin",
    ]);
    expect(all.status).toBe(200);
    const { subjects } = (await all.json()) as { subjects: { subject: string; estimatedCostUsd: number }[] };
    expect(subjects.find((s) => s.subject === userId)?.estimatedCostUsd).toBe(0.01175);
    const costs = subjects.map((s) => s.estimatedCostUsd);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
  });

  it("a spent daily budget ends the next run before its LLM call, as budget_exhausted, and the memory is still served", async () => {
    const { userId, generator, clock, itemId } = await subject("budget", { DAILY_TOKEN_BUDGET: "1000" });
    generator.push({
      kind: "accept",
      statements: [statement("Work", "Spends tokens", itemId)],
      stats: stats({ "gen-model": { inputTokens: 900, outputTokens: 200, calls: 2 } }),
    });
    await run(userId, clock);
    expect(generator.requests).toHaveLength(1);
    await run(userId, clock);
    expect(generator.requests).toHaveLength(1);

    const rows = await testDb().execute<{
      status: string;
      outcome: string;
      error_code: string | null;
      input_tokens: number;
    }>(sql`
      select status, outcome, error_code, input_tokens from memory_runs where subject_id = ${userId} order by queued_at`);
    expect(rows.rows).toEqual([
      { status: "succeeded", outcome: "accepted", error_code: null, input_tokens: 900 },
      { status: "failed", outcome: "budget_exhausted", error_code: "budget_exhausted", input_tokens: 0 },
    ]);
    // Tried again the next day (UTC), not counted as a failed attempt.
    const status = await agentStub(userId).status();
    expect(status).toMatchObject({ phase: "backoff", nextRunAt: "2027-06-16T00:00:00.000Z" });

    const memory = await get(userId, "/memory", {});
    expect(memory.status).toBe(200);
    expect(await memory.json()).toMatchObject({ memory: expect.stringContaining("Spends tokens") });
    const usage = await get(userId, `/me/usage?since=${DAY}&until=${DAY}`, {});
    const [day] = (
      (await usage.json()) as { days: { runsByOutcome: Record<string, number>; inputTokens: number }[] }
    ).days;
    expect(day).toMatchObject({ runsByOutcome: { succeeded: 1, budgetExhausted: 1 }, inputTokens: 900 });
  });

  it("DELETE /me takes the user's name off their usage; a user who joins again with the same id starts from nothing, budget included", async () => {
    const budget = { DAILY_TOKEN_BUDGET: "1000" };
    const { userId, generator, clock, itemId } = await subject("erased-usage", budget);
    generator.push({
      kind: "accept",
      statements: [statement("Work", "Spends the day's tokens", itemId)],
      stats: stats({ "gen-model": { inputTokens: 900, outputTokens: 200, calls: 2 } }),
    });
    await run(userId, clock);
    const admin = newUserId("erase-usage-admin");
    const usageSubjects = async () => {
      const res = await get(admin, `/usage?since=${DAY}&until=${DAY}`, {}, [...READ_WRITE, "admin"]);
      expect(res.status).toBe(200);
      return ((await res.json()) as { subjects: { subject: string; inputTokens: number }[] }).subjects;
    };
    expect((await usageSubjects()).find((s) => s.subject === userId)).toMatchObject({ inputTokens: 900 });

    const ctx = createExecutionContext();
    const request = new Request("http://local/me", { method: "DELETE", headers: await bearer(userId) });
    const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env as Env, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(204);

    const left = await testDb().execute(sql`select 1 from usage_daily where subject_id = ${userId}`);
    expect(left.rows).toEqual([]);
    const subjects = await usageSubjects();
    expect(subjects.map((s) => s.subject)).not.toContain(userId);
    // The workspace's totals stand, under the one-way name the audit trail gives the erased user.
    const hashed = `erased:${(await sha256Hex(`default\u001f${userId}`)).slice(0, 32)}`;
    expect(subjects.find((s) => s.subject === hashed)).toMatchObject({ inputTokens: 900 });

    // Joining again under the same id: no inherited usage, so the day's budget is whole again.
    const again = new FakeGenerator();
    const againClock = new FakeClock(`${DAY}T12:00:00Z`);
    await installAgent(userId, again, againClock);
    overrideAgentOf(userId, { env: budget });
    const [fresh] = await ingestSettled(userId, [item({ externalId: "erased-usage-again" })]);
    const mine = await get(userId, `/me/usage?since=${DAY}&until=${DAY}`, {});
    expect(((await mine.json()) as { days: unknown[] }).days).toEqual([]);
    again.push({ kind: "accept", statements: [statement("Work", "Starts afresh", fresh!)] });
    await run(userId, againClock);
    expect(again.requests).toHaveLength(1);
    const runs = await testDb().execute<{ outcome: string }>(
      sql`select outcome from memory_runs where subject_id = ${userId}`,
    );
    expect(runs.rows).toEqual([{ outcome: "accepted" }]);
  });

  it("refuses bad ranges and settings clearly", async () => {
    const userId = newUserId("usage-bad");
    expect((await get(userId, "/me/usage?since=2027-02-30", {})).status).toBe(400);
    expect((await get(userId, "/me/usage?since=2027-01-02&until=2027-01-01", {})).status).toBe(400);
    expect((await get(userId, "/me/usage?since=2025-01-01&until=2027-01-01", {})).status).toBe(400);
    const bad = await get(userId, "/me/usage", { MODEL_PRICES: '{"m": {"input": "three"}}' });
    expect(bad.status).toBe(500);
    expect(JSON.stringify(await bad.json())).toContain("MODEL_PRICES");
  });
});
