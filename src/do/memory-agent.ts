import { DurableObject } from "cloudflare:workers";
import type { Clock } from "../domain/clock";
import type { GeneratorSource } from "../domain/generation";
import type { ItemStore } from "../domain/items";
import { isSubjectKey, MAX_SUBJECT_KEY_LENGTH, RUN_TRIGGERS, type RunTrigger } from "../domain/memory";
import type { AgentStatus, RefreshOptions } from "../memory/memory-agents-port";
import type { MemoryCache } from "../memory/memory-cache";
import type { MemoryReader } from "../memory/memory-reader";
import { type AgentStateStore, type RunExecutionDeps, runAlarm } from "../memory/run-execution";
import { RunGuard } from "../memory/run-guard";
import type { RunLedger } from "../memory/run-ledger";
import {
  type AgentState,
  alarmAt,
  initialState,
  onRequest,
  type RefreshAnswer,
  reopenIfGeneratorReturned,
  type SchedulePolicy,
} from "../memory/run-schedule";
import { erasedAt, eraseState, loadState, saveState } from "./agent-state";

/** What one MemoryAgent instance works with, built once per instance by whoever defines the worker's class. */
export interface AgentDeps {
  clock: Clock;
  ledger: RunLedger;
  reader: Pick<MemoryReader, "current">;
  /** Written after each commit that changes what GET /memory serves (memory/served-memory.ts). */
  memoryCache: MemoryCache;
  items: Pick<ItemStore, "search">;
  /** Decided once per instance: a generator over the configured LLMs, or why there is none. */
  generation(): GeneratorSource;
  policy: SchedulePolicy;
  leaseMarginMs: number;
  /** The subject's daily budgets (DAILY_RUN_BUDGET_USD, DAILY_TOKEN_BUDGET) and the price table. */
  budgets?: RunExecutionDeps["budgets"];
  /** What may be logged about an error (never parameters or messages). */
  logFields(error: unknown): Record<string, unknown>;
  /** Where new versions and repeated failures are announced (webhooks). */
  webhooks?: RunExecutionDeps["webhooks"];
}

/**
 * One per subject (`idFromName("user:" + id)`): owns that subject's memory lifecycle. A thin shell: typed
 * RPC methods check their input and apply the pure transitions of memory/run-schedule.ts to the state kept
 * in this object's SQLite storage; runs happen only in alarm(), one at a time, under a lease, through
 * memory/run-execution.ts. Its collaborators are handed to its constructor: the worker's class (index.ts)
 * passes the production wiring, the tests their own.
 */
export class MemoryAgent extends DurableObject {
  private readonly deps: AgentDeps;
  private readonly guard: RunGuard;
  private readonly stateStore: AgentStateStore;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env, deps: AgentDeps) {
    super(ctx, env);
    this.deps = deps;
    this.guard = new RunGuard((runId) => loadState(ctx.storage.sql).run?.id === runId);
    this.stateStore = {
      load: () => loadState(ctx.storage.sql),
      commit: (state) => this.commit(state),
    };
  }

  async requestRefresh(
    subjectKey: string,
    reason: RunTrigger,
    options: RefreshOptions = {},
  ): Promise<RefreshAnswer> {
    assertSubject(subjectKey);
    if (!(RUN_TRIGGERS as readonly string[]).includes(reason))
      throw new TypeError(`unknown reason: ${reason}`);
    const { notBefore, sentAt } = options;
    if (notBefore !== undefined && !Number.isFinite(notBefore))
      throw new TypeError("notBefore must be a number");
    if (sentAt !== undefined && !Number.isFinite(sentAt)) throw new TypeError("sentAt must be a number");
    if (this.erasedSince(sentAt)) return { status: "erased" };
    let state = this.stateFor(subjectKey);
    const reopened = reopenIfGeneratorReturned(state);
    if (reopened !== state && this.deps.generation().kind === "ready") state = reopened;
    const { state: next, answer } = onRequest(
      state,
      reason,
      this.now(),
      this.deps.policy,
      notBefore,
      options.memoryMissing === true,
    );
    await this.commit(next);
    return answer;
  }

  /** POST /memory/refresh. Says "unavailable" at once when no generator can run. */
  async forceRefresh(subjectKey: string, sentAt?: number): Promise<RefreshAnswer> {
    assertSubject(subjectKey);
    const source = this.deps.generation();
    if (source.kind === "unavailable")
      return { status: "unavailable", code: source.code, message: source.message };
    return this.requestRefresh(subjectKey, "manual", { sentAt });
  }

  async status(): Promise<AgentStatus> {
    const s = loadState(this.ctx.storage.sql);
    const at = alarmAt(s);
    return {
      subjectKey: s.subjectKey,
      phase: s.phase,
      nextRunAt: at === null ? null : new Date(at).toISOString(),
      runId: s.run?.id ?? null,
      attempts: s.failures,
      lastError: s.lastError,
    };
  }

  /**
   * The erase: from its first statement no run holds this object (the fence refuses every later write) and
   * nothing sent before `at` is accepted; the run's generation is aborted, the writes already in flight are
   * awaited (so the database erase that follows removes them too), and the alarm is removed.
   */
  async forget(at: number): Promise<void> {
    if (!Number.isFinite(at)) throw new TypeError("erasedAt must be a number");
    eraseState(this.ctx.storage.sql, at);
    await this.guard.abortAndDrain("the subject was erased");
    await this.ctx.storage.deleteAlarm();
  }

  override async alarm(): Promise<void> {
    await runAlarm(this.runDeps());
  }

  private runDeps(): RunExecutionDeps {
    return {
      ...this.deps,
      state: this.stateStore,
      guard: this.guard,
      newRunId: () => crypto.randomUUID(),
      log: (level, msg, subjectKey, error) =>
        console[level](JSON.stringify({ level, msg, subjectKey, ...this.deps.logFields(error) })),
    };
  }

  /** Whether this object was erased at or after `sentAt` (a request sent before the erase). */
  private erasedSince(sentAt: number | undefined): boolean {
    const erased = erasedAt(this.ctx.storage.sql);
    return erased !== null && sentAt !== undefined && sentAt <= erased;
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

  private stateFor(subjectKey: string): AgentState {
    const state = loadState(this.ctx.storage.sql);
    if (state.subjectKey === null) return { ...initialState(), ...state, subjectKey };
    if (state.subjectKey !== subjectKey) throw new Error("this MemoryAgent belongs to another subject");
    return state;
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }
}

function assertSubject(subjectKey: unknown): asserts subjectKey is string {
  if (!isSubjectKey(subjectKey)) {
    throw new TypeError(
      `subjectKey must be a non-empty string of at most ${MAX_SUBJECT_KEY_LENGTH} characters`,
    );
  }
}
