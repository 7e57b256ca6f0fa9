import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { MemoryAgent } from "../src/do/memory-agent";
import { newUserId } from "./support/auth";
import { item } from "./support/items";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  fetchSettled,
  hoursAgo,
  ingestSettled,
  installAgent,
  releaseGenerator,
  runAlarm,
  seedMemory,
  services,
  statement,
  untilGenerating,
  untilRunning,
} from "./support/memory-agent";

const MINUTE = 60_000;
const used: string[] = [];
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

async function subject(generator: FakeGenerator | null = new FakeGenerator()) {
  const userId = newUserId();
  used.push(userId);
  const agent = await installAgent(userId, generator);
  const ids = await ingestSettled(userId, [item({ externalId: "a" }), item({ externalId: "b" })]);
  return { userId, ids, ...agent };
}

const runsOf = async (userId: string) => (await services().memoryReader.runs(userId, { limit: 50 })).entries;
const versionsOf = async (userId: string) =>
  (await services().memoryReader.versions(userId, { limit: 50 })).entries;

describe("MemoryAgent runs", () => {
  it("starts exactly one run for 100 concurrent reads of a stale memory, before and during the run", async () => {
    const generator = new FakeGenerator({ kind: "block" });
    const { userId, ids, stub } = await subject(generator);
    await seedMemory(userId, [statement("Work", "Leads payments", ids[0]!)], {
      generatedAt: hoursAgo(48),
      materialChangedAt: hoursAgo(1),
    });
    generator.push({ kind: "accept", statements: [statement("Work", "Leads billing", ids[1]!)] });

    const before = await Promise.all(
      Array.from({ length: 50 }, () => fetchSettled(userId, "GET", "/memory")),
    );
    expect(before.every((r) => r.status === 200)).toBe(true);

    const running = runAlarm(userId);
    await untilRunning(userId);
    const during = await Promise.all(
      Array.from({ length: 50 }, () => fetchSettled(userId, "GET", "/memory")),
    );
    expect(during.every((r) => r.status === 200)).toBe(true);
    await releaseGenerator(userId, generator);
    await running;

    expect(await runAlarm(userId)).toBe(false);
    expect(generator.requests).toHaveLength(1);
    const runs = await runsOf(userId);
    expect(runs.filter((r) => r.trigger !== "manual")).toMatchObject([
      { status: "succeeded", trigger: "read" },
    ]);
    expect(await versionsOf(userId)).toHaveLength(2);
    expect((await stub.status()).phase).toBe("idle");
  });

  it("refuses a forced refresh inside the min interval with 429 and Retry-After", async () => {
    const generator = new FakeGenerator();
    const { userId, ids, clock } = await subject(generator);
    generator.push({ kind: "accept", statements: [statement("Work", "Leads payments", ids[0]!)] });

    const first = await fetchSettled(userId, "POST", "/memory/refresh");
    expect(first.status).toBe(202);
    expect(await first.json()).toMatchObject({ status: "scheduled" });
    await runAlarm(userId);
    expect(generator.requests).toMatchObject([{ trigger: "manual" }]);

    clock.advance(10 * MINUTE);
    const refused = await fetchSettled(userId, "POST", "/memory/refresh");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe(String(50 * 60));
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "rate_limited",
      message: "A refresh is not allowed yet; try again in 50 min.",
    });

    clock.advance(50 * MINUTE);
    expect((await fetchSettled(userId, "POST", "/memory/refresh")).status).toBe(202);
  });

  it("answers 503 llm_not_configured to a forced refresh when no generator can run", async () => {
    const { userId } = await subject(null);
    const res = await fetchSettled(userId, "POST", "/memory/refresh");
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("llm_not_configured");
  });

  it("backs off exponentially after failures, gives up after the attempt cap, and restarts on new material", async () => {
    const failure = { kind: "fail", code: "llm_overloaded", retryable: true } as const;
    const generator = new FakeGenerator(failure, failure, failure, failure);
    const { userId, stub, clock } = await subject(generator);

    await fetchSettled(userId, "GET", "/memory");
    await runAlarm(userId);
    for (const [attempt, delay] of [
      [2, 1],
      [3, 2],
      [4, 4],
    ] as const) {
      const status = await stub.status();
      expect(status).toMatchObject({ phase: "backoff", attempts: attempt - 1 });
      expect(Date.parse(status.nextRunAt!) - clock.now().getTime()).toBe(delay * MINUTE);
      await runAlarm(userId); // early: nothing runs
      expect(generator.requests).toHaveLength(attempt - 1);
      clock.advance(delay * MINUTE);
      await runAlarm(userId);
      expect(generator.requests).toHaveLength(attempt);
    }

    expect(await stub.status()).toMatchObject({ phase: "exhausted", attempts: 4, nextRunAt: null });
    // The agent's clock stood still: every attempt was queued at the same instant, so sort by attempt.
    const runs = (await runsOf(userId)).sort((a, b) => b.attempt - a.attempt);
    expect(runs.map((r) => [r.status, r.attempt, r.errorCode])).toEqual([
      ["failed", 4, "llm_overloaded"],
      ["failed", 3, "llm_overloaded"],
      ["failed", 2, "llm_overloaded"],
      ["failed", 1, "llm_overloaded"],
    ]);

    const broken = await fetchSettled(userId, "GET", "/memory");
    expect(broken.status).toBe(503);
    expect(await broken.json()).toMatchObject({
      error: { code: "generation_failing", details: { lastErrorCode: "llm_overloaded" } },
    });
    expect(await runAlarm(userId)).toBe(false);

    await ingestSettled(userId, [item({ externalId: "c" })]);
    expect(await stub.status()).toMatchObject({ phase: "scheduled", attempts: 0 });
  });

  it("keeps the previous memory current when a run is rejected", async () => {
    const generator = new FakeGenerator({ kind: "reject", reason: "statement 0 is unsupported" });
    const { userId, ids, stub } = await subject(generator);
    const versionId = await seedMemory(userId, [statement("Work", "Leads payments", ids[0]!)], {
      generatedAt: hoursAgo(30),
      materialChangedAt: hoursAgo(1),
    });

    await fetchSettled(userId, "GET", "/memory");
    await runAlarm(userId);
    expect((await stub.status()).phase).toBe("backoff");
    const res = await fetchSettled(userId, "GET", "/memory");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ version: versionId, memory: "## Work\n- Leads payments [1]" });
    expect((await runsOf(userId))[0]).toMatchObject({
      status: "rejected",
      errorCode: "judge_rejected",
      errorMessage: "statement 0 is unsupported",
      verdict: { accepted: false, unsupported: [0] },
    });
  });

  it("debounces ingest notifications into one run", async () => {
    const generator = new FakeGenerator();
    const { userId, ids, stub, clock } = await subject(generator);
    const firstAt = Date.parse((await stub.status()).nextRunAt!);
    for (const externalId of ["c", "d", "e", "f"]) {
      clock.advance(MINUTE);
      await ingestSettled(userId, [item({ externalId })]);
    }
    const status = await stub.status();
    expect(status.phase).toBe("scheduled");
    expect(Date.parse(status.nextRunAt!)).toBe(firstAt);

    await runAlarm(userId); // one minute short of the debounce
    expect(generator.requests).toHaveLength(0);
    clock.set(new Date(firstAt));
    generator.push({ kind: "accept", statements: [statement("Work", "Leads payments", ids[0]!)] });
    await runAlarm(userId);
    expect(generator.requests).toMatchObject([{ trigger: "ingest" }]);
    expect(await runAlarm(userId)).toBe(false);
  });

  it("restarts a run whose object was evicted mid-run once its lease expires, and completes it once", async () => {
    const generator = new FakeGenerator({ kind: "block" });
    const { userId, ids, clock } = await subject(generator);
    await fetchSettled(userId, "POST", "/memory/refresh");

    // The alarm's promise never settles once its object is gone; it is not awaited.
    void runAlarm(userId).catch(() => {});
    await untilGenerating(userId, generator);
    await abortAllDurableObjects();
    generator.push({ kind: "accept", statements: [statement("Work", "Leads payments", ids[0]!)] });

    // A new instance: the same seams again, still inside the lease.
    await installAgent(userId, generator, clock);
    const stub = agentStub(userId);
    expect(await stub.requestRefresh(userId, "manual")).toMatchObject({ status: "running" });
    await runAlarm(userId);
    expect(generator.requests).toHaveLength(1);
    expect(await versionsOf(userId)).toHaveLength(0);

    clock.advance(15 * MINUTE);
    await runAlarm(userId);
    expect(generator.requests).toHaveLength(2);
    expect(await runAlarm(userId)).toBe(false);

    const runs = await runsOf(userId);
    // Both rows carry the first request's queued_at, so the listing orders them by id: compare as a set.
    expect(runs.map((r) => [r.status, r.attempt, r.errorCode]).sort()).toEqual([
      ["failed", 1, "run_interrupted"],
      ["succeeded", 2, null],
    ]);
    expect(await versionsOf(userId)).toHaveLength(1);
    expect((await stub.status()).phase).toBe("idle");
  });

  it("rejects an RPC for another subject than the object's own", async () => {
    const { userId } = await subject();
    const stub = agentStub(userId);
    const error = await stub.requestRefresh(newUserId(), "read").then(
      () => null,
      (e: unknown) => e,
    );
    expect(String(error)).toMatch(/another subject/);
    await runInDurableObject(stub, (agent: MemoryAgent) => expect(agent).toBeDefined());
    expect(env.MEMORY_AGENT).toBeDefined();
  });
});
