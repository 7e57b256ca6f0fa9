/**
 * LLM faults through the whole worker, with the real wiring (MemoryAgent alarm -> real generator -> SDK
 * adapters -> the fake LLM server, whose faults are keyed by the run's end-user id, which every request carries): each
 * failure is recorded in the runs ledger, the agent backs off, and GET /memory keeps serving the previous
 * version.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { demoRefreshBatch } from "../fixtures/demo-workspace";
import { endUserIdOf } from "../src/agent/end-user";
import {
  backdateMemory,
  demoSubject,
  firstMemory,
  forcedRefresh,
  type MemoryMarkdown,
  runsOf,
  type ServedRun,
  setAgentEnv,
  versionsOf,
} from "./support/e2e";
import { type FakeFault, fakeLlm } from "./support/fake-llm-control";
import { call, json, warmUpWorker } from "./support/items";
import { agentStub, clearAlarm, ingestSettled, runAlarm, services } from "./support/memory-agent";

const llm = fakeLlm();
const used: string[] = [];
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

/** A subject with a first memory (from its own demo items), ready for a second run. */
async function subjectWithMemory() {
  const s = await demoSubject("ada", { owners: ["ada"] });
  used.push(...Object.values(s.userIds));
  const first = await firstMemory(s.userId);
  return { ...s, first, match: await endUserIdOf(s.userId) };
}

async function expectServed(userId: string, version: string): Promise<void> {
  const res = await call(userId, "GET", "/memory");
  expect(res.status).toBe(200);
  expect(res.headers.get("ETag")).toBe(`"${version}"`);
  expect((await json<MemoryMarkdown>(res)).version).toBe(version);
}

/** The ledger's entry for the run after the first one. */
async function secondRun(userId: string, firstVersion: string): Promise<ServedRun> {
  const runs = await runsOf(userId);
  expect(runs).toHaveLength(2);
  const run = runs.find((r) => r.versionId !== firstVersion);
  if (!run) throw new Error("no second run in the ledger");
  return run;
}

/**
 * Runs a forced refresh into `fault` and checks what every failure has in common. `newItems`: the demo's
 * refresh batch arrives first (and schedules an ingest run, which the forced refresh brings forward), so
 * the refresh has new statements for the judge: one that only keeps the previous memory's statements, with
 * their items unchanged, has nothing to judge again.
 */
async function failingRefresh(
  fault: FakeFault,
  options: { role?: "generator" | "judge"; times?: number; errorCode: string; newItems?: boolean },
) {
  const s = await subjectWithMemory();
  if (options.newItems) {
    await backdateMemory(s.userId, new Date());
    await ingestSettled(s.userId, demoRefreshBatch(s.now, "ada", { userIds: s.userIds }));
  }
  // Generator and judge requests both carry the end-user id; the role tells them apart.
  const match = s.match;
  const handle = await llm.fault(match, fault, { role: options.role, times: options.times });
  await forcedRefresh(s.userId, s.clock);

  expect(await handle.state()).toMatchObject({ hits: options.times ?? 1, remaining: 0 });
  const run = await secondRun(s.userId, s.first.version);
  expect(run).toMatchObject({
    trigger: options.newItems ? "ingest" : "manual",
    status: "failed",
    outcome: "failed",
    errorCode: options.errorCode,
    versionId: null,
  });
  expect(run.errorMessage).toBeTruthy();
  const status = await agentStub(s.userId).status();
  expect(status).toMatchObject({ phase: "backoff", attempts: 1, lastError: { code: options.errorCode } });
  expect(Date.parse(status.nextRunAt!) - s.clock.now().getTime()).toBe(services().config.memory.retryBaseMs);
  await expectServed(s.userId, s.first.version);
  expect(await versionsOf(s.userId)).toHaveLength(1);
  return { ...s, run };
}

describe("LLM faults end to end", () => {
  it("records a 429 as llm_rate_limited, backs off, keeps the previous memory, and succeeds on the retry", async () => {
    const s = await failingRefresh(
      { kind: "rate_limit", retryAfterSeconds: 7 },
      { role: "generator", errorCode: "llm_rate_limited" },
    );
    expect(s.run.errorMessage).toMatch(/429/);
    expect(s.run.turns).toBe(0);

    // Early: nothing runs. At the backoff's instant: the retry succeeds with a new version.
    expect(await runAlarm(s.userId)).toBe(true);
    expect((await runsOf(s.userId)).length).toBe(2);
    s.clock.advance(services().config.memory.retryBaseMs);
    await runAlarm(s.userId);
    const runs = await runsOf(s.userId);
    expect(runs.map((r) => [r.trigger, r.attempt, r.status])).toContainEqual(["manual", 2, "succeeded"]);
    const current = await json<MemoryMarkdown>(await call(s.userId, "GET", "/memory"));
    expect(current.version).not.toBe(s.first.version);
    expect((await agentStub(s.userId).status()).phase).toBe("idle");
  });

  it("records a 500 as llm_server_error, backs off and keeps the previous memory", async () => {
    await failingRefresh({ kind: "server_error" }, { role: "generator", errorCode: "llm_server_error" });
  });

  it("records a response slower than LLM_TIMEOUT_SECONDS as llm_timeout, backs off and keeps the previous memory", async () => {
    const s = await subjectWithMemory();
    await setAgentEnv(s.userId, { LLM_TIMEOUT_SECONDS: "1" });
    const handle = await llm.fault(s.match, { kind: "slow", delayMs: 3000 }, { role: "generator" });
    await forcedRefresh(s.userId, s.clock);

    expect(await handle.state()).toMatchObject({ hits: 1 });
    const run = await secondRun(s.userId, s.first.version);
    expect(run).toMatchObject({ status: "failed", errorCode: "llm_timeout", versionId: null });
    expect(await agentStub(s.userId).status()).toMatchObject({
      phase: "backoff",
      lastError: { code: "llm_timeout" },
    });
    await expectServed(s.userId, s.first.version);
  });

  it("answers a malformed tool call with an error result to the model and completes the run", async () => {
    const s = await subjectWithMemory();
    const handle = await llm.fault(s.match, { kind: "malformed_tool_call" }, { role: "generator" });
    const before = (await llm.requests(s.match, { role: "generator" })).at(-1)!.seq;
    await forcedRefresh(s.userId, s.clock);

    expect(await handle.state()).toMatchObject({ hits: 1 });
    const run = await secondRun(s.userId, s.first.version);
    expect(run).toMatchObject({ status: "succeeded", errorCode: null });
    const [faulted, next] = (await llm.requests(s.match, { role: "generator" })).filter(
      (r) => r.seq > before,
    );
    expect(faulted?.handledBy).toBe(`fault:${handle.id}`);
    const results = (next?.neutral?.messages ?? []).flatMap((m) =>
      m.content.flatMap((b) => (b.type === "tool_result" ? [b] : [])),
    );
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ isError: true });
    expect((await agentStub(s.userId).status()).phase).toBe("idle");
    await expectServed(s.userId, run.versionId!);
  });

  it("records a final answer without <memory> tags, twice, as no_memory_block and keeps the previous memory", async () => {
    const s = await failingRefresh(
      { kind: "missing_memory_tags" },
      { role: "generator", times: 2, errorCode: "no_memory_block" },
    );
    expect(s.run.turns).toBe(2);
  });

  it("records a verdict that does not parse as judge_invalid_verdict and keeps the previous memory", async () => {
    const s = await failingRefresh(
      { kind: "invalid_verdict", variant: "json" },
      { role: "judge", errorCode: "judge_invalid_verdict", newItems: true },
    );
    expect(s.run.usage["openai:fake-judge"]?.calls).toBe(1);
  });
});
