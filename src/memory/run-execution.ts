/**
 * One run of a subject's memory, from the alarm to the ledger: the unchanged shortcut, the previous memory,
 * generation, then the accepted memory or the ending, each write behind the RunGuard's fence. Written
 * against ports (ledger, reader, agent state, clock), so it is tested with in-memory fakes; the MemoryAgent
 * Durable Object only supplies them.
 */
import type { Clock } from "../domain/clock";
import {
  emptyStats,
  type GenerationResult,
  type GeneratorSource,
  type PreviousMemory,
} from "../domain/generation";
import type { ItemStore } from "../domain/items";
import {
  type DroppedStatement,
  type MemoryStatus,
  type RunErrorCode,
  type Salvage,
  type Statement,
  UNAVAILABLE_CODES,
} from "../domain/memory";
import { renderMemory } from "../domain/memory-render";
import { type Dismissal, restatedDismissal, stampStatements } from "../domain/statements";
import {
  budgetExceeded,
  type DailyBudgets,
  type ModelPrices,
  nextUtcMidnight,
  utcDay,
} from "../domain/usage";
import type { WebhookEvents } from "../domain/webhook-events";
import type { MemoryCache, Pause } from "./memory-cache";
import type { MemoryReader } from "./memory-reader";
import { announceFailure, newVersionAnnouncement, sendRecordedAnnouncements } from "./run-announcements";
import type { RunGuard } from "./run-guard";
import type { RunLedger, RunStart } from "./run-ledger";
import {
  type ActiveRun,
  type AgentState,
  INTERRUPTED,
  onAlarm,
  onFinish,
  type RunOutcome,
  type SchedulePolicy,
} from "./run-schedule";
import { storeServedMemory } from "./served-memory";

/** The agent's own state, as the Durable Object keeps it (SQLite storage and its alarm). */
export interface AgentStateStore {
  load(): AgentState;
  /** Saves the state and points the alarm at alarmAt(state) (or removes it). */
  commit(state: AgentState): Promise<void>;
}

export type RunLog = (level: "warn" | "error", msg: string, subjectKey: string, error: unknown) => void;

export interface RunExecutionDeps {
  ledger: RunLedger;
  reader: Pick<MemoryReader, "current">;
  /** The edge cache: written after each commit of the run that changes what GET /memory serves. */
  memoryCache: MemoryCache;
  /** Waits between two writes of one cache entry (setTimeout unless given). */
  pause?: Pause;
  /** Only to know whether the subject can see any item at all (nothing to remember: no LLM call). */
  items: Pick<ItemStore, "search">;
  /** Whether a generator can run, and which: decided by the composition root. */
  generation(): GeneratorSource;
  state: AgentStateStore;
  guard: RunGuard;
  clock: Clock;
  policy: SchedulePolicy;
  /** The generator is aborted this long before the lease runs out, so its ending is still recorded. */
  leaseMarginMs: number;
  /** Unique run ids (crypto.randomUUID in production). */
  newRunId(): string;
  /** Ids of statements a version states for the first time (default crypto.randomUUID). */
  newStatementId?: () => string;
  log: RunLog;
  /** The subject's daily budgets and the price table they are estimated with; none when absent. */
  budgets?: { daily: DailyBudgets; prices: ModelPrices };
  /** Where a new version and repeated failures are announced (the webhooks queue); none: not announced. */
  webhooks?: Pick<WebhookEvents, "emit" | "flush">;
}

/** What a run read before generating, which its ending needs again. */
interface RunContext {
  previous: PreviousMemory | null;
  /** The newest dismissal the generator was told about. */
  dismissalSeq: number;
}

/** The alarm: records a run whose lease expired, then starts the run that is due (if any). */
export async function runAlarm(deps: RunExecutionDeps): Promise<void> {
  const state = deps.state.load();
  if (!state.subjectKey) return;
  const now = deps.clock.now().getTime();
  const step = onAlarm(state, now, deps.policy, deps.newRunId());
  if (step.interrupted) await recordInterrupted(deps, state.subjectKey, step.interrupted, step.state, now);
  await deps.state.commit(step.state);
  if (step.kind === "start") await executeRun(deps, state.subjectKey, step.run);
}

/** Runs `run` to its end. Writes nothing once the run no longer holds the agent (lease lost, or erased). */
export async function executeRun(deps: RunExecutionDeps, subjectKey: string, run: ActiveRun): Promise<void> {
  const { ledger, guard } = deps;
  const start = runStartOf(subjectKey, run);
  let result: GenerationResult;
  const context: RunContext = { previous: null, dismissalSeq: 0 };
  try {
    if (run.trigger === "read" || run.trigger === "sweep") {
      // Nothing new since the current memory: confirm it, no run, no LLM call.
      if ((await ledger.materialChangedSinceMemory(subjectKey)) === false) {
        const confirmed = await guard.write(run.id, () =>
          ledger.confirmUnchanged(subjectKey, deps.clock.now()),
        );
        if (confirmed.written) {
          await cacheServedMemory(deps, subjectKey, run.id);
          await finish(deps, run.id, { kind: "unchanged" });
        }
        return;
      }
    }
    // A subject who can see no item has nothing to remember: no ledger row, no LLM call.
    if ((await deps.items.search(subjectKey, { limit: 1 })).items.length === 0) {
      await finish(deps, run.id, { kind: "unchanged" });
      return;
    }
    const source = deps.generation();
    if (!(await guard.write(run.id, () => ledger.runStarted(start))).written) return;
    // A daily budget the subject has spent: the run ends here, before any LLM call.
    const overBudget = source.kind === "ready" ? await spentBudget(deps, subjectKey, start.startedAt) : null;
    result =
      source.kind === "unavailable"
        ? failedResult(source.code, source.message, false)
        : overBudget !== null
          ? failedResult("budget_exhausted", overBudget, true)
          : await generate(deps, source.generator, subjectKey, run, context);
  } catch (error) {
    deps.log("error", "run_error", subjectKey, error);
    // The message stays generic: a driver error's text can quote the query's parameters (the log has the cause).
    result = failedResult(
      "internal_error",
      "The run failed unexpectedly; the service log has the cause.",
      true,
    );
  } finally {
    guard.release(run.id);
  }
  await record(deps, start, run, result, context);
}

async function generate(
  deps: RunExecutionDeps,
  generator: Extract<GeneratorSource, { kind: "ready" }>["generator"],
  subjectKey: string,
  run: ActiveRun,
  context: RunContext,
): Promise<GenerationResult> {
  const [current, dismissed] = await Promise.all([
    deps.reader.current(subjectKey),
    deps.ledger.dismissals(subjectKey),
  ]);
  const previous: PreviousMemory | null = current?.version
    ? {
        versionId: current.version.id,
        markdown: current.version.markdown,
        statements: current.version.statements,
        generatedAt: current.version.generatedAt,
      }
    : null;
  context.previous = previous;
  context.dismissalSeq = dismissed.seq;
  const timeoutMs = Math.max(1000, run.leaseUntil - run.startedAt - deps.leaseMarginMs);
  const signal = deps.guard.signalFor(run.id, timeoutMs);
  if (!deps.guard.allows(run.id)) return failedResult("aborted", "the run no longer holds its agent", false);
  return generator.generate(
    { subjectKey, runId: run.id, trigger: run.trigger, previous, dismissed: dismissed.dismissals },
    signal,
  );
}

/** Writes the run's ending (the accepted memory, or why not) and moves the agent's schedule on. */
async function record(
  deps: RunExecutionDeps,
  start: RunStart,
  run: ActiveRun,
  result: GenerationResult,
  context: RunContext,
) {
  const { ledger, guard } = deps;
  const finishedAt = deps.clock.now();
  try {
    let ending: Exclude<GenerationResult, { outcome: "accepted" }>;
    if (result.outcome === "accepted") {
      // A dismissal made while the run was generating: its restatements go now; one made after this read
      // refuses the version (runAccepted's fence), and the run is tried again.
      const latest = await ledger.dismissals(start.subjectKey);
      const late = latest.dismissals.filter((d) => d.seq > context.dismissalSeq);
      const { statements: drafts, salvaged } = withoutLateDismissals(
        result.statements,
        result.salvaged,
        late,
      );
      const statements = stampStatements(
        drafts,
        context.previous?.statements ?? null,
        finishedAt,
        deps.newStatementId ?? (() => crypto.randomUUID()),
      );
      const { markdown, citedIds } = renderMemory(statements);
      const accepted = {
        markdown,
        statements,
        citedItemIds: citedIds,
        generatorModel: result.generatorModel,
        judgeModel: result.judgeModel,
        verdict: result.verdict,
        generatedAt: start.startedAt,
        salvaged,
        superseded: result.superseded && result.superseded.length > 0 ? result.superseded : null,
        dismissalSeq: latest.seq,
        ...(deps.webhooks
          ? {
              announcement: newVersionAnnouncement(
                start.subjectKey,
                statements,
                context.previous,
                run.trigger,
              ),
            }
          : {}),
      };
      const written =
        statements.length === 0
          ? null
          : await guard.write(run.id, () => ledger.runAccepted(start, accepted, result.stats, finishedAt));
      if (written && !written.written) return;
      const refused = written?.value;
      if (refused?.written) {
        await sendRecordedAnnouncements(deps, start.subjectKey);
        await cacheServedMemory(deps, start.subjectKey, run.id);
        await finish(deps, run.id, { kind: "succeeded" });
        return;
      }
      ending =
        refused === undefined || refused.reason === "statement_dismissed"
          ? failedResult(
              "statement_dismissed",
              "the subject dismissed a statement while the run was generating",
              true,
            )
          : failedResult("cited_item_deleted", "an item the memory cites was deleted during the run", true);
    } else {
      ending = result;
    }
    const outcome = outcomeOf(ending, finishedAt);
    const next = onFinish(deps.state.load(), run.id, outcome, deps.clock.now().getTime(), deps.policy);
    const ended = await guard.write(run.id, () =>
      ledger.runEnded(start, {
        status: ending.outcome === "rejected" ? "rejected" : "failed",
        finishedAt,
        stats: ending.stats,
        verdict: ending.outcome === "rejected" ? ending.verdict : null,
        outcome:
          ending.outcome === "rejected"
            ? "rejected"
            : ending.errorCode === "budget_exhausted"
              ? "budget_exhausted"
              : "failed",
        errorCode: outcome.error.code,
        errorMessage: outcome.error.message,
        memoryStatus: memoryStatusAfter(next),
        nextAttemptAt: nextAttemptOf(next),
      }),
    );
    if (ended.written) await deps.state.commit(next);
    if (ended.written) {
      const failure = { failures: next.failures, errorCode: outcome.error.code, nextRunAt: next.nextRunAt };
      await announceFailure(deps, start.subjectKey, finishedAt, failure);
    }
  } catch (error) {
    // The ledger could not be written (database down): the schedule still moves on (backoff). The row left
    // `running` is closed by the next run's start (RunLedger.runStarted closes older running rows).
    deps.log("error", "run_record_failed", start.subjectKey, error);
    if (deps.state.load().run?.id !== run.id) return;
    const message = "The run's outcome could not be recorded: the database did not answer.";
    await finish(deps, run.id, {
      kind: "failed",
      error: { code: "database_unavailable", message },
      retryable: true,
    });
  }
}

/** Why the subject may not run today (a daily budget spent), or null; null too when no budget is set. */
async function spentBudget(deps: RunExecutionDeps, subjectKey: string, at: Date): Promise<string | null> {
  const budgets = deps.budgets;
  if (!budgets || (budgets.daily.usd === undefined && budgets.daily.tokens === undefined)) return null;
  const spent = await deps.ledger.spentOn(subjectKey, utcDay(at));
  return budgetExceeded(spent, budgets.daily, budgets.prices);
}

function outcomeOf(
  ending: Exclude<GenerationResult, { outcome: "accepted" }>,
  at: Date,
): Exclude<RunOutcome, { kind: "succeeded" | "unchanged" }> {
  if (ending.outcome === "failed" && ending.errorCode === "budget_exhausted") {
    // The budget is per day: the agent tries again after midnight (UTC), not counted as a failed attempt.
    return {
      kind: "deferred",
      error: { code: ending.errorCode, message: ending.errorMessage },
      until: nextUtcMidnight(at).getTime(),
    };
  }
  return ending.outcome === "rejected"
    ? { kind: "rejected", error: { code: "judge_rejected", message: ending.reason }, retryable: true }
    : {
        kind: "failed",
        error: { code: ending.errorCode, message: ending.errorMessage },
        retryable: ending.retryable,
        retryAfterMs: ending.retryAfterMs,
      };
}

async function finish(deps: RunExecutionDeps, runId: string, outcome: RunOutcome): Promise<void> {
  const next = onFinish(deps.state.load(), runId, outcome, deps.clock.now().getTime(), deps.policy);
  await deps.state.commit(next);
}

/**
 * After the run's commit (a new current version, or the current one confirmed): the subject's edge cache
 * entry follows, behind the run's fence (an erase waits for it, then removes the entry). A cache that fails
 * costs hits, not the run: logged, and the entry is removed (memory-cache.ts writeVerified).
 */
async function cacheServedMemory(deps: RunExecutionDeps, subjectKey: string, runId: string): Promise<void> {
  if (!deps.memoryCache.enabled) return;
  const served = { ...deps, ttlMs: deps.policy.ttlMs };
  await deps.guard
    .write(runId, () => storeServedMemory(served, subjectKey))
    .catch((error: unknown) => deps.log("warn", "memory_cache_write_failed", subjectKey, error));
}

/** The accepted statements without those restating a dismissal the generator was not told about. */
function withoutLateDismissals(
  statements: Statement[],
  salvaged: Salvage | null,
  late: readonly (Dismissal & { seq: number })[],
): { statements: Statement[]; salvaged: Salvage | null } {
  if (late.length === 0) return { statements, salvaged };
  const dropped: DroppedStatement[] = [];
  const kept = statements.filter((s) => {
    if (!restatedDismissal(s, late)) return true;
    dropped.push({
      section: s.section,
      text: s.text,
      reason: "restates a statement the subject dismissed during the run",
      cause: "dismissed",
    });
    return false;
  });
  if (dropped.length === 0) return { statements, salvaged };
  return {
    statements: kept,
    salvaged: {
      kept: kept.length,
      dropped: (salvaged?.dropped ?? 0) + dropped.length,
      statements: [...(salvaged?.statements ?? []), ...dropped],
    },
  };
}

/** A run whose lease expired: its ledger row becomes failed; if that was the last attempt, say so. */
async function recordInterrupted(
  deps: RunExecutionDeps,
  subjectKey: string,
  run: ActiveRun,
  next: AgentState,
  now: number,
): Promise<void> {
  const at = new Date(now);
  const { code, message } = next.lastError ?? INTERRUPTED;
  const write =
    next.phase === "exhausted"
      ? deps.ledger.runEnded(runStartOf(subjectKey, run), {
          status: "failed",
          finishedAt: at,
          stats: emptyStats(),
          outcome: "interrupted",
          errorCode: code,
          errorMessage: message,
          memoryStatus: memoryStatusAfter(next),
          nextAttemptAt: nextAttemptOf(next),
        })
      : deps.ledger.runInterrupted(run.id, subjectKey, at, code, message);
  await write.catch((error: unknown) => deps.log("warn", "ledger_write_failed", subjectKey, error));
}

/** The ledger's view of a run the agent started. */
export function runStartOf(subjectKey: string, run: ActiveRun): RunStart {
  return {
    id: run.id,
    subjectKey,
    trigger: run.trigger,
    attempt: run.attempt,
    queuedAt: new Date(run.requestedAt),
    startedAt: new Date(run.startedAt),
  };
}

/**
 * What the memories row says after an unsuccessful run: "retrying" while the agent backs off before its
 * next attempt, "generating" when that attempt starts at once, "failed" or "unavailable" once it gave up.
 */
export function memoryStatusAfter(
  state: AgentState,
): Extract<MemoryStatus, "generating" | "retrying" | "failed" | "unavailable"> {
  if (state.phase === "backoff") return "retrying";
  if (state.phase !== "exhausted") return "generating";
  return state.lastError && UNAVAILABLE_CODES.includes(state.lastError.code) ? "unavailable" : "failed";
}

/** When the agent tries again by itself after an unsuccessful run, or null when it will not. */
export function nextAttemptOf(state: AgentState): Date | null {
  return state.phase === "backoff" && state.nextRunAt !== null ? new Date(state.nextRunAt) : null;
}

function failedResult(
  errorCode: RunErrorCode,
  errorMessage: string,
  retryable: boolean,
): Extract<GenerationResult, { outcome: "failed" }> {
  return { outcome: "failed", errorCode, errorMessage, retryable, stats: emptyStats() };
}
