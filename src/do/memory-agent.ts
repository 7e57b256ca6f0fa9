import { DurableObject } from "cloudflare:workers";
import { buildServices, type GeneratorSource, resolveGenerator, type Services } from "../composition";
import { errorLogFields } from "../db/database-errors";
import { type Clock, systemClock } from "../domain/clock";
import { emptyStats, type GenerationResult, type PreviousMemory } from "../domain/generation";
import { RUN_TRIGGERS } from "../domain/memory";
import { renderMemory } from "../domain/memory-render";
import type { Env } from "../env";
import type { AgentStatus, RefreshOptions } from "../memory/memory-agents";
import type { MemoryStatus, RunStart } from "../memory/memory-store";
import {
  type ActiveRun,
  type AgentState,
  alarmAt,
  INTERRUPTED,
  initialState,
  onAlarm,
  onFinish,
  onRequest,
  type RefreshAnswer,
  type RefreshReason,
  type RunOutcome,
  reopenIfGeneratorReturned,
  type SchedulePolicy,
  UNAVAILABLE_CODES,
} from "../memory/run-schedule";
import { loadState, saveState } from "./agent-state";

export type GeneratorFactory = (services: Services) => GeneratorSource;

/** Retries never wait longer than this (nor longer than the freshness window). */
const RETRY_CAP_MS = 6 * 3600_000;
/** The generator is aborted this long before the lease runs out, so its ending is still recorded. */
const LEASE_MARGIN_MS = 30_000;
const MAX_SUBJECT_LENGTH = 255;

/**
 * One per subject (`idFromName("user:" + id)`): owns that subject's memory lifecycle. A thin shell: RPC
 * methods validate input and apply the pure transitions of memory/run-schedule.ts to the state kept in this
 * object's SQLite storage; runs happen only in alarm(), one at a time, under a lease.
 */
export class MemoryAgent extends DurableObject<Env> {
  /** Seams resolved through the composition root; a test may replace them on the instance. */
  generatorFactory: GeneratorFactory = resolveGenerator;
  clock: Clock = systemClock;
  servicesFactory: (env: Env) => Services = (env) => buildServices(env);

  async requestRefresh(
    subjectId: string,
    reason: RefreshReason,
    options: RefreshOptions = {},
  ): Promise<RefreshAnswer> {
    assertSubject(subjectId);
    if (!(RUN_TRIGGERS as readonly string[]).includes(reason))
      throw new TypeError(`unknown reason: ${reason}`);
    const notBefore = options.notBefore;
    if (notBefore !== undefined && !Number.isFinite(notBefore))
      throw new TypeError("notBefore must be a number");
    let state = this.stateFor(subjectId);
    if (
      reopenIfGeneratorReturned(state) !== state &&
      this.generatorFactory(this.services()).kind === "ready"
    ) {
      state = reopenIfGeneratorReturned(state);
    }
    const { state: next, answer } = onRequest(
      state,
      reason,
      this.now(),
      this.policy(),
      notBefore,
      options.memoryMissing === true,
    );
    await this.commit(next);
    return answer;
  }

  /** POST /memory/refresh. Says "unavailable" at once when no generator can run. */
  async forceRefresh(subjectId: string): Promise<RefreshAnswer> {
    assertSubject(subjectId);
    const source = this.generatorFactory(this.services());
    if (source.kind === "unavailable") {
      return { status: "unavailable", code: source.code, message: source.message };
    }
    return this.requestRefresh(subjectId, "manual");
  }

  async status(): Promise<AgentStatus> {
    const s = loadState(this.ctx.storage.sql);
    return {
      subjectId: s.subjectId,
      phase: s.phase,
      nextRunAt: alarmAt(s) === null ? null : new Date(alarmAt(s)!).toISOString(),
      runId: s.run?.id ?? null,
      attempts: s.failures,
      lastError: s.lastError,
    };
  }

  /** Erases this object's state and alarm. A run in flight loses its fence and writes nothing. */
  async forget(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  override async alarm(): Promise<void> {
    const state = loadState(this.ctx.storage.sql);
    if (!state.subjectId) return;
    const now = this.now();
    const step = onAlarm(state, now, this.policy(), crypto.randomUUID());
    const services = this.services();
    if (step.interrupted)
      await this.recordInterrupted(services, state.subjectId, step.interrupted, step.state, now);
    await this.commit(step.state);
    if (step.kind === "start") await this.execute(services, state.subjectId, step.run);
  }

  private async execute(services: Services, subjectId: string, run: ActiveRun): Promise<void> {
    const store = services.memoryStore;
    const start = runStartOf(subjectId, run);
    let result: GenerationResult;
    try {
      if (run.trigger === "read" || run.trigger === "sweep") {
        // Nothing new since the current memory: confirm it, no run, no LLM call.
        if ((await store.materialChangedSinceMemory(subjectId)) === false) {
          await store.confirmUnchanged(subjectId, new Date(this.now()));
          await this.finish(run.id, { kind: "unchanged" });
          return;
        }
      }
      const source = this.generatorFactory(services);
      await store.runStarted(start);
      if (source.kind === "unavailable") {
        result = failedResult(source.code, source.message, false);
      } else {
        const current = await store.current(subjectId);
        const previous: PreviousMemory | null = current?.version
          ? {
              versionId: current.version.id,
              markdown: current.version.markdown,
              statements: current.version.statements,
              generatedAt: current.version.generatedAt,
            }
          : null;
        const signal = AbortSignal.timeout(Math.max(1000, run.leaseUntil - run.startedAt - LEASE_MARGIN_MS));
        result = await source.generator.generate(
          { subjectId, runId: run.id, trigger: run.trigger, previous },
          signal,
        );
      }
    } catch (error) {
      log("error", "run_error", subjectId, error);
      result = failedResult("internal_error", error instanceof Error ? error.message : String(error), true);
    }

    // Fence: only the run this object still holds may write (not one that lost its lease, nor a forgotten one).
    if (loadState(this.ctx.storage.sql).run?.id !== run.id) return;
    const finishedAt = new Date(this.now());
    try {
      let ending: Exclude<GenerationResult, { outcome: "accepted" }>;
      if (result.outcome === "accepted") {
        const { markdown, citedIds } = renderMemory(result.statements);
        const written = await store.runAccepted(
          start,
          {
            markdown,
            statements: result.statements,
            citedItemIds: citedIds,
            generatorModel: result.generatorModel,
            judgeModel: result.judgeModel,
            verdict: result.verdict,
            generatedAt: start.startedAt,
          },
          result.stats,
          finishedAt,
        );
        if (written.written) {
          await this.finish(run.id, { kind: "succeeded" });
          return;
        }
        ending = failedResult(
          "cited_item_deleted",
          "an item the memory cites was deleted during the run",
          true,
        );
      } else {
        ending = result;
      }
      const outcome: RunOutcome =
        ending.outcome === "rejected"
          ? { kind: "rejected", error: { code: "judge_rejected", message: ending.reason }, retryable: true }
          : {
              kind: "failed",
              error: { code: ending.errorCode, message: ending.errorMessage },
              retryable: ending.retryable,
              retryAfterMs: ending.retryAfterMs,
            };
      const next = this.transition(run.id, outcome);
      await store.runEnded(start, {
        status: ending.outcome === "rejected" ? "rejected" : "failed",
        finishedAt,
        stats: ending.stats,
        verdict: ending.outcome === "rejected" ? ending.verdict : null,
        outcome: ending.outcome === "rejected" ? "rejected" : "failed",
        errorCode: outcome.error.code,
        errorMessage: outcome.error.message,
        memoryStatus: memoryStatusFor(next),
      });
      await this.commit(next);
    } catch (error) {
      // The ledger could not be written (database down): the state machine still moves on (backoff).
      log("error", "run_record_failed", subjectId, error);
      await this.finish(run.id, {
        kind: "failed",
        error: {
          code: "database_unavailable",
          message: "The run's outcome could not be recorded: the database did not answer.",
        },
        retryable: true,
      });
    }
  }

  private transition(runId: string, outcome: RunOutcome): AgentState {
    return onFinish(loadState(this.ctx.storage.sql), runId, outcome, this.now(), this.policy());
  }

  private async finish(runId: string, outcome: RunOutcome): Promise<void> {
    await this.commit(this.transition(runId, outcome));
  }

  /** A run whose lease expired: its ledger row becomes failed; if that was the last attempt, say so. */
  private async recordInterrupted(
    services: Services,
    subjectId: string,
    run: ActiveRun,
    next: AgentState,
    now: number,
  ): Promise<void> {
    const at = new Date(now);
    const { code, message } = next.lastError ?? INTERRUPTED;
    const write =
      next.phase === "exhausted"
        ? services.memoryStore.runEnded(runStartOf(subjectId, run), {
            status: "failed",
            finishedAt: at,
            stats: emptyStats(),
            outcome: "interrupted",
            errorCode: code,
            errorMessage: message,
            memoryStatus: memoryStatusFor(next),
          })
        : services.memoryStore.runInterrupted(run.id, subjectId, at, code, message);
    await write.catch((error: unknown) => log("warn", "ledger_write_failed", subjectId, error));
  }

  /** Saves the state and points the alarm at the state's next instant (or removes it). */
  private async commit(state: AgentState): Promise<void> {
    saveState(this.ctx.storage.sql, state);
    const at = alarmAt(state);
    if (at === null) {
      await this.ctx.storage.deleteAlarm();
    } else if ((await this.ctx.storage.getAlarm()) !== at) {
      await this.ctx.storage.setAlarm(at);
    }
  }

  private stateFor(subjectId: string): AgentState {
    const state = loadState(this.ctx.storage.sql);
    if (state.subjectId === null) return { ...initialState(), ...state, subjectId };
    if (state.subjectId !== subjectId) throw new Error("this MemoryAgent belongs to another subject");
    return state;
  }

  private services(): Services {
    return this.servicesFactory(this.env);
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  private policy(): SchedulePolicy {
    const { memory } = this.services().config;
    return {
      minIntervalMs: memory.minIntervalMs,
      ingestDebounceMs: memory.ingestDebounceMs,
      maxAttempts: memory.maxAttempts,
      retryBaseMs: memory.retryBaseMs,
      retryCapMs: Math.min(RETRY_CAP_MS, memory.ttlMs),
      runLeaseMs: memory.runLeaseMs,
      ttlMs: memory.ttlMs,
    };
  }
}

/** The ledger's view of a run the object started. */
function runStartOf(subjectId: string, run: ActiveRun): RunStart {
  return {
    id: run.id,
    subjectId,
    trigger: run.trigger,
    attempt: run.attempt,
    queuedAt: new Date(run.requestedAt),
    startedAt: new Date(run.startedAt),
  };
}

function memoryStatusFor(state: AgentState): Extract<MemoryStatus, "generating" | "failed" | "unavailable"> {
  if (state.phase !== "exhausted") return "generating";
  return UNAVAILABLE_CODES.includes(state.lastError?.code ?? "") ? "unavailable" : "failed";
}

function failedResult(
  errorCode: string,
  errorMessage: string,
  retryable: boolean,
): Extract<GenerationResult, { outcome: "failed" }> {
  return { outcome: "failed", errorCode, errorMessage, retryable, stats: emptyStats() };
}

function assertSubject(subjectId: unknown): asserts subjectId is string {
  if (typeof subjectId !== "string" || subjectId.length === 0 || subjectId.length > MAX_SUBJECT_LENGTH) {
    throw new TypeError("subjectId must be a non-empty string of at most 255 characters");
  }
}

function log(level: "warn" | "error", msg: string, subjectId: string, error: unknown): void {
  console[level](JSON.stringify({ level, msg, subjectId, ...errorLogFields(error) }));
}
