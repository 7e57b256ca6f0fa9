/**
 * The run scheduling state machine of one subject's MemoryAgent. Pure: the Durable Object loads the state
 * from its storage, calls one of these transitions with "now", saves the result and sets its alarm to
 * `alarmAt(state)`. Runs only ever start in `onAlarm`.
 *
 *   idle --request--> scheduled --alarm--> running --finish ok--> idle (or scheduled if material arrived)
 *                                              |--finish failed--> backoff --alarm--> running ...
 *                                              |--failed maxAttempts times / not retryable--> exhausted
 *   running with an expired lease (the object was evicted mid-run) --alarm--> running again (new run id)
 *   exhausted --new material, sweep or manual refresh--> scheduled; reads leave it alone.
 */
import { type AgentPhase, type RunErrorCode, type RunTrigger, UNAVAILABLE_CODES } from "../domain/memory";

export type Phase = AgentPhase;

export interface ActiveRun {
  id: string;
  trigger: RunTrigger;
  attempt: number;
  /** When the run was first asked for (the ledger's queued_at). */
  requestedAt: number;
  startedAt: number;
  /** The run is presumed dead after this instant; the alarm then restarts it under a new id. */
  leaseUntil: number;
}

export interface RunError {
  code: RunErrorCode;
  message: string;
}

export interface AgentState {
  subjectKey: string | null;
  phase: Phase;
  /** Why the next run (scheduled or backoff) will happen. */
  trigger: RunTrigger | null;
  nextRunAt: number | null;
  requestedAt: number | null;
  run: ActiveRun | null;
  /** Consecutive failed, rejected or interrupted attempts. */
  failures: number;
  /** Last instant the memory was known to reflect all material (a success, or an unchanged check). */
  freshAsOf: number | null;
  /** Last accepted run: the min interval between runs counts from here. */
  lastSucceededAt: number | null;
  lastError: RunError | null;
  /** New material arrived while a run was going or waiting to retry: refresh once more afterwards. */
  dirty: boolean;
}

export interface SchedulePolicy {
  minIntervalMs: number;
  ingestDebounceMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryCapMs: number;
  runLeaseMs: number;
  ttlMs: number;
}

export type RefreshAnswer =
  | { status: "scheduled"; runAt: number }
  | { status: "running"; runId: string }
  | { status: "fresh"; freshAsOf: number }
  | { status: "failing"; code: RunErrorCode | "generation_failing" }
  | { status: "refused"; retryAfterMs: number }
  /** No generator can run (e.g. no LLM configured): nothing was scheduled. */
  | { status: "unavailable"; code: "llm_not_configured" | "generation_unavailable"; message: string }
  /** The subject was erased after this request was sent: nothing was scheduled. */
  | { status: "erased" };

export interface Transition {
  state: AgentState;
  answer: RefreshAnswer;
}

export type AlarmStep =
  /** Start `run` now. `interrupted` is a run whose lease expired: record it as failed. */
  | { kind: "start"; state: AgentState; run: ActiveRun; interrupted: ActiveRun | null }
  /** Nothing to run now (early alarm, or a run that still holds its lease). */
  | { kind: "wait"; state: AgentState; interrupted: ActiveRun | null };

export type RunOutcome =
  | { kind: "succeeded" }
  /** Nothing new since the last memory: no generation happened, the memory was confirmed. */
  | { kind: "unchanged" }
  | { kind: "rejected" | "failed"; error: RunError; retryable: boolean; retryAfterMs?: number }
  /** Not run (a daily budget is spent): tried again at `until`, without counting as a failed attempt. */
  | { kind: "deferred"; error: RunError; until: number };

/** An agent that gave up only because no generator was configured may start again once one is. */
export function reopenIfGeneratorReturned(state: AgentState): AgentState {
  if (state.phase !== "exhausted" || !(state.lastError && UNAVAILABLE_CODES.includes(state.lastError.code)))
    return state;
  return { ...state, phase: "idle", failures: 0, lastError: null };
}

export const INTERRUPTED: RunError = {
  code: "run_interrupted",
  message: "the run's lease expired before it finished (the object was evicted or crashed)",
};

export function initialState(): AgentState {
  return {
    subjectKey: null,
    phase: "idle",
    trigger: null,
    nextRunAt: null,
    requestedAt: null,
    run: null,
    failures: 0,
    freshAsOf: null,
    lastSucceededAt: null,
    lastError: null,
    dirty: false,
  };
}

/** The instant the object's alarm should fire for this state, or null for no alarm. */
export function alarmAt(state: AgentState): number | null {
  if (state.phase === "running") return state.run?.leaseUntil ?? null;
  if (state.phase === "scheduled" || state.phase === "backoff") return state.nextRunAt;
  return null;
}

/** Earliest instant the min interval allows the next run to start. */
export function minIntervalGate(state: AgentState, policy: SchedulePolicy): number {
  return state.lastSucceededAt === null ? 0 : state.lastSucceededAt + policy.minIntervalMs;
}

export function backoffDelay(failures: number, policy: SchedulePolicy): number {
  const exponent = Math.max(0, failures - 1);
  return Math.min(policy.retryCapMs, policy.retryBaseMs * 2 ** Math.min(exponent, 30));
}

/**
 * Someone asks for a refresh. `notBefore` lets the sweep spread its start times.
 * Reads and sweeps of a memory the object knows to be fresh are answered "fresh" (a late or stale poke),
 * unless the reader found no memory at all (`memoryMissing`: the database and this object disagree, e.g.
 * after a restore; the database wins);
 * a manual refresh inside the min interval or during a backoff is refused with the time to wait.
 */
export function onRequest(
  state: AgentState,
  reason: RunTrigger,
  now: number,
  policy: SchedulePolicy,
  notBefore?: number,
  memoryMissing = false,
): Transition {
  const newMaterial = reason === "ingest" || reason === "delete";

  if (state.phase === "running" && state.run) {
    return {
      state: { ...state, dirty: state.dirty || newMaterial },
      answer: { status: "running", runId: state.run.id },
    };
  }

  const gate = minIntervalGate(state, policy);
  if (reason === "manual") {
    if (gate > now) return { state, answer: { status: "refused", retryAfterMs: gate - now } };
    if (state.phase === "backoff" && state.nextRunAt !== null && state.nextRunAt > now) {
      return { state, answer: { status: "refused", retryAfterMs: state.nextRunAt - now } };
    }
  }

  if (
    (reason === "read" || reason === "sweep") &&
    !memoryMissing &&
    state.freshAsOf !== null &&
    now - state.freshAsOf < policy.ttlMs
  ) {
    if (state.phase !== "scheduled" && state.phase !== "backoff") {
      return { state, answer: { status: "fresh", freshAsOf: state.freshAsOf } };
    }
  }

  let next = state;
  if (state.phase === "exhausted") {
    if (reason === "read") {
      return { state, answer: { status: "failing", code: state.lastError?.code ?? "generation_failing" } };
    }
    next = { ...state, phase: "idle", failures: 0, nextRunAt: null, trigger: null };
  }

  if (next.phase === "backoff" && next.nextRunAt !== null) {
    return {
      state: { ...next, dirty: next.dirty || newMaterial },
      answer: { status: "scheduled", runAt: next.nextRunAt },
    };
  }

  const wanted = Math.max(reason === "ingest" ? now + policy.ingestDebounceMs : now, gate, notBefore ?? 0);
  if (next.phase === "scheduled" && next.nextRunAt !== null && next.nextRunAt <= wanted) {
    return { state: next, answer: { status: "scheduled", runAt: next.nextRunAt } };
  }
  return {
    state: {
      ...next,
      phase: "scheduled",
      nextRunAt: wanted,
      trigger: reason,
      requestedAt: next.phase === "scheduled" ? (next.requestedAt ?? now) : now,
    },
    answer: { status: "scheduled", runAt: wanted },
  };
}

/** The alarm fired. Starts a due run, restarts one whose lease expired, or waits. */
export function onAlarm(state: AgentState, now: number, policy: SchedulePolicy, newRunId: string): AlarmStep {
  if (state.phase === "running" && state.run) {
    if (now < state.run.leaseUntil) return { kind: "wait", state, interrupted: null };
    const interrupted = state.run;
    const failures = state.failures + 1;
    if (failures >= policy.maxAttempts) {
      return {
        kind: "wait",
        state: { ...state, phase: "exhausted", run: null, failures, lastError: INTERRUPTED, nextRunAt: null },
        interrupted,
      };
    }
    const run = startRun(newRunId, interrupted.trigger, failures + 1, now, now, policy);
    return {
      kind: "start",
      state: { ...state, run, failures, lastError: INTERRUPTED },
      run,
      interrupted,
    };
  }
  if ((state.phase === "scheduled" || state.phase === "backoff") && state.nextRunAt !== null) {
    if (state.nextRunAt > now) return { kind: "wait", state, interrupted: null };
    const run = startRun(
      newRunId,
      state.trigger ?? "manual",
      state.failures + 1,
      state.requestedAt ?? now,
      now,
      policy,
    );
    return {
      kind: "start",
      state: { ...state, phase: "running", run, nextRunAt: null, trigger: null, requestedAt: null },
      run,
      interrupted: null,
    };
  }
  return { kind: "wait", state, interrupted: null };
}

function startRun(
  id: string,
  trigger: RunTrigger,
  attempt: number,
  requestedAt: number,
  now: number,
  policy: SchedulePolicy,
): ActiveRun {
  return { id, trigger, attempt, requestedAt, startedAt: now, leaseUntil: now + policy.runLeaseMs };
}

/**
 * A run ended. Ignored (state unchanged) unless `runId` is the object's current run, so a run that lost its
 * lease can never overwrite the state of the run that replaced it.
 */
export function onFinish(
  state: AgentState,
  runId: string,
  outcome: RunOutcome,
  now: number,
  policy: SchedulePolicy,
): AgentState {
  if (state.phase !== "running" || state.run?.id !== runId) return state;
  const run = state.run;
  const base: AgentState = { ...state, run: null, nextRunAt: null, trigger: null, requestedAt: null };

  if (outcome.kind === "succeeded" || outcome.kind === "unchanged") {
    const done: AgentState = {
      ...base,
      phase: "idle",
      failures: 0,
      lastError: null,
      freshAsOf: now,
      lastSucceededAt: outcome.kind === "succeeded" ? now : state.lastSucceededAt,
      dirty: false,
    };
    if (!state.dirty) return done;
    const runAt = Math.max(now + policy.ingestDebounceMs, minIntervalGate(done, policy));
    return { ...done, phase: "scheduled", nextRunAt: runAt, trigger: "ingest", requestedAt: now };
  }

  if (outcome.kind === "deferred") {
    return {
      ...base,
      phase: "backoff",
      lastError: outcome.error,
      nextRunAt: Math.max(outcome.until, now),
      trigger: run.trigger,
      requestedAt: now,
    };
  }
  const failures = state.failures + 1;
  if (!outcome.retryable || failures >= policy.maxAttempts) {
    return { ...base, phase: "exhausted", failures, lastError: outcome.error, dirty: false };
  }
  return {
    ...base,
    phase: "backoff",
    failures,
    lastError: outcome.error,
    // Exponential backoff, but never sooner than the provider's Retry-After.
    nextRunAt: now + Math.max(backoffDelay(failures, policy), outcome.retryAfterMs ?? 0),
    trigger: run.trigger,
    requestedAt: now,
  };
}
