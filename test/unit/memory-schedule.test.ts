import { describe, expect, it } from "vitest";
import {
  type AgentState,
  alarmAt,
  backoffDelay,
  initialState,
  onAlarm,
  onFinish,
  onRequest,
  type SchedulePolicy,
} from "../../src/memory/run-schedule";

const MIN = 60_000;
const policy: SchedulePolicy = {
  minIntervalMs: 60 * MIN,
  ingestDebounceMs: 5 * MIN,
  maxAttempts: 4,
  retryBaseMs: MIN,
  retryCapMs: 6 * 60 * MIN,
  runLeaseMs: 15 * MIN,
  ttlMs: 24 * 60 * MIN,
};
const T = Date.UTC(2026, 0, 1);
const subject = (): AgentState => ({ ...initialState(), subjectKey: "u" });

function runNow(state: AgentState, now: number, id = "r1"): AgentState {
  const step = onAlarm(state, now, policy, id);
  if (step.kind !== "start") throw new Error(`expected a start, got ${step.kind}`);
  return step.state;
}

describe("run schedule", () => {
  it("defers a run a daily budget stopped to its instant, without counting it as a failed attempt", () => {
    let state = subject();
    const midnight = Date.UTC(2026, 0, 2);
    for (let day = 0; day < policy.maxAttempts + 2; day++) {
      const running = runNow(onRequest(state, "read", T, policy).state, T);
      const error = { code: "budget_exhausted" as const, message: "spent" };
      state = onFinish(running, "r1", { kind: "deferred", error, until: midnight }, T + MIN, policy);
      expect(state).toMatchObject({ phase: "backoff", failures: 0, nextRunAt: midnight, lastError: error });
      state = { ...state, phase: "idle", nextRunAt: null };
    }
  });

  it("schedules a read at once, and merges later requests into the same run", () => {
    const a = onRequest(subject(), "read", T, policy);
    expect(a.answer).toEqual({ status: "scheduled", runAt: T });
    const b = onRequest(a.state, "ingest", T + 1, policy);
    expect(b.state.nextRunAt).toBe(T);
    expect(alarmAt(b.state)).toBe(T);
  });

  it("schedules a run for a reader who found no memory even when the object believes it fresh, within the min interval", () => {
    const running = runNow(onRequest(subject(), "read", T, policy).state, T);
    const done = onFinish(running, "r1", { kind: "succeeded" }, T + MIN, policy);
    const missing = onRequest(done, "read", T + 2 * MIN, policy, undefined, true);
    expect(missing.answer).toEqual({ status: "scheduled", runAt: T + 61 * MIN });
  });

  it("backs off at least as long as the provider's Retry-After asks", () => {
    const running = runNow(onRequest(subject(), "read", T, policy).state, T);
    const error = { code: "llm_rate_limited" as const, message: "slow down" };
    const short = onFinish(
      running,
      "r1",
      { kind: "failed", error, retryable: true, retryAfterMs: 1000 },
      T,
      policy,
    );
    expect(short.nextRunAt).toBe(T + MIN);
    const long = onFinish(
      running,
      "r1",
      { kind: "failed", error, retryable: true, retryAfterMs: 10 * MIN },
      T,
      policy,
    );
    expect(long).toMatchObject({ phase: "backoff", nextRunAt: T + 10 * MIN });
  });

  it("debounces ingest and never pushes a scheduled run later", () => {
    const a = onRequest(subject(), "ingest", T, policy);
    const b = onRequest(a.state, "ingest", T + 4 * MIN, policy);
    expect(b.state.nextRunAt).toBe(T + 5 * MIN);
  });

  it("marks material that arrives during a run and refreshes once more after it", () => {
    const running = runNow(onRequest(subject(), "read", T, policy).state, T);
    const during = onRequest(running, "ingest", T + MIN, policy);
    expect(during.answer).toEqual({ status: "running", runId: "r1" });
    const done = onFinish(during.state, "r1", { kind: "succeeded" }, T + 2 * MIN, policy);
    expect(done).toMatchObject({ phase: "scheduled", trigger: "ingest", nextRunAt: T + 62 * MIN });
  });

  it("answers fresh to a late read after a success, and refuses a manual refresh inside the min interval", () => {
    const running = runNow(onRequest(subject(), "read", T, policy).state, T);
    const done = onFinish(running, "r1", { kind: "succeeded" }, T + MIN, policy);
    expect(onRequest(done, "read", T + 2 * MIN, policy).answer).toEqual({
      status: "fresh",
      freshAsOf: T + MIN,
    });
    expect(onRequest(done, "manual", T + 11 * MIN, policy).answer).toEqual({
      status: "refused",
      retryAfterMs: 50 * MIN,
    });
  });

  it("doubles the backoff up to the cap", () => {
    expect([1, 2, 3, 4, 20].map((n) => backoffDelay(n, policy))).toEqual([
      MIN,
      2 * MIN,
      4 * MIN,
      8 * MIN,
      360 * MIN,
    ]);
  });

  it("gives up at once on a failure that is not retryable", () => {
    const running = runNow(onRequest(subject(), "read", T, policy).state, T);
    const error = { code: "llm_auth" as const, message: "bad key" };
    const done = onFinish(running, "r1", { kind: "failed", error, retryable: false }, T + MIN, policy);
    expect(done).toMatchObject({ phase: "exhausted", lastError: error });
    expect(alarmAt(done)).toBeNull();
    expect(onRequest(done, "read", T + 2 * MIN, policy).answer).toEqual({
      status: "failing",
      code: "llm_auth",
    });
    expect(onRequest(done, "sweep", T + 2 * MIN, policy).state.phase).toBe("scheduled");
  });

  it("ignores the ending of a run that is no longer the current one", () => {
    const running = runNow(onRequest(subject(), "read", T, policy).state, T);
    const restarted = runNow(running, T + 16 * MIN, "r2");
    expect(restarted.run?.id).toBe("r2");
    expect(onFinish(restarted, "r1", { kind: "succeeded" }, T + 17 * MIN, policy)).toBe(restarted);
  });

  it("waits while a run holds its lease", () => {
    const running = runNow(onRequest(subject(), "read", T, policy).state, T);
    expect(onAlarm(running, T + 14 * MIN, policy, "r2")).toMatchObject({ kind: "wait", interrupted: null });
  });
});
