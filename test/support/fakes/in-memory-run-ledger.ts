/**
 * The runs ledger and the current-memory read, in memory, with Postgres's semantics: an accepted memory is
 * refused when a cited item is gone; a new run closes rows older runs left `running`. `failNext` makes the
 * next call of a method throw, as a database that is down would.
 */
import type { MemoryStatus, RunErrorCode, Salvage, Statement } from "../../../src/domain/memory";
import type { ModelSpend } from "../../../src/domain/usage";
import type { CurrentMemory, LastFailure } from "../../../src/memory/memory-reader";
import type { AcceptedMemory, RunDismissals, RunLedger } from "../../../src/memory/run-ledger";

export interface LedgerRow {
  id: string;
  subjectKey: string;
  trigger: string;
  status: "running" | "succeeded" | "rejected" | "failed";
  attempt: number;
  outcome: string | null;
  errorCode: RunErrorCode | null;
  errorMessage: string | null;
  versionId: string | null;
  salvaged: Salvage | null;
}

export interface MemoryRow {
  status: MemoryStatus;
  errorCode: RunErrorCode | null;
  version: { id: string; markdown: string; statements: Statement[]; generatedAt: Date } | null;
  materialChangedAt: Date | null;
  checkedAt: Date | null;
  lastFailure?: LastFailure | null;
}

type Method = keyof RunLedger;

export class InMemoryRunLedger implements RunLedger {
  readonly runs: LedgerRow[] = [];
  readonly versions: (AcceptedMemory & { id: string; runId: string })[] = [];
  readonly memories = new Map<string, MemoryRow>();
  /** Ids of the items that exist (an accepted memory citing another one is refused). */
  readonly items = new Set<string>();
  /** The dismissals `dismissals()` answers, per subject (newest first). */
  readonly dismissed = new Map<string, RunDismissals["dismissals"]>();
  /** What `spentOn` answers, per subject and day (`<subjectKey> <YYYY-MM-DD>`). */
  readonly spent = new Map<string, Record<string, ModelSpend>>();
  readonly calls: Method[] = [];
  private readonly failing = new Set<Method>();

  failNext(method: Method): void {
    this.failing.add(method);
  }

  private call(method: Method): void {
    this.calls.push(method);
    if (this.failing.delete(method)) throw new Error(`database unavailable (${method})`);
  }

  private row(subjectKey: string): MemoryRow {
    let row = this.memories.get(subjectKey);
    if (!row) {
      row = { status: "none", errorCode: null, version: null, materialChangedAt: null, checkedAt: null };
      this.memories.set(subjectKey, row);
    }
    return row;
  }

  async current(subjectKey: string): Promise<CurrentMemory | null> {
    const row = this.memories.get(subjectKey);
    if (!row) return null;
    return {
      subjectKey,
      status: row.status,
      errorCode: row.errorCode,
      lastFailure: row.lastFailure ?? null,
      checkedAt: row.checkedAt,
      version: row.version ? { ...row.version, redactedAt: null, citations: [] } : null,
    };
  }

  async materialChangedSinceMemory(subjectKey: string) {
    this.call("materialChangedSinceMemory");
    const row = this.memories.get(subjectKey);
    if (!row?.version) return null;
    return row.materialChangedAt !== null && row.materialChangedAt > row.version.generatedAt;
  }

  async dismissals(subjectKey: string): Promise<RunDismissals> {
    const dismissals = this.dismissed.get(subjectKey) ?? [];
    return { dismissals, seq: Math.max(0, ...dismissals.map((d) => d.seq)) };
  }

  async confirmUnchanged(subjectKey: string, at: Date) {
    this.call("confirmUnchanged");
    this.row(subjectKey).checkedAt = at;
  }

  async runStarted(run: Parameters<RunLedger["runStarted"]>[0]) {
    this.call("runStarted");
    for (const r of this.runs) {
      if (r.subjectKey === run.subjectKey && r.status === "running" && r.id !== run.id) {
        Object.assign(r, { status: "failed", outcome: "interrupted", errorCode: "run_interrupted" });
      }
    }
    this.runs.push({
      id: run.id,
      subjectKey: run.subjectKey,
      trigger: run.trigger,
      status: "running",
      attempt: run.attempt,
      outcome: null,
      errorCode: null,
      errorMessage: null,
      versionId: null,
      salvaged: null,
    });
    const row = this.row(run.subjectKey);
    row.status = "generating";
    if (row.lastFailure) row.lastFailure = { ...row.lastFailure, nextAttemptAt: null };
  }

  async runAccepted(...[run, memory]: Parameters<RunLedger["runAccepted"]>) {
    this.call("runAccepted");
    const ledger = this.runs.find((r) => r.id === run.id);
    const seq = Math.max(0, ...(this.dismissed.get(run.subjectKey) ?? []).map((d) => d.seq));
    if (memory.dismissalSeq !== undefined && seq > memory.dismissalSeq) {
      if (ledger) Object.assign(ledger, { status: "failed", outcome: "statement_dismissed" });
      return { written: false as const, reason: "statement_dismissed" as const };
    }
    if (!memory.citedItemIds.every((id) => this.items.has(id))) {
      if (ledger) Object.assign(ledger, { status: "failed", outcome: "cited_item_deleted" });
      return { written: false as const, reason: "cited_item_deleted" as const };
    }
    const id = crypto.randomUUID();
    this.versions.push({ ...memory, id, runId: run.id });
    const row = this.row(run.subjectKey);
    row.version = {
      id,
      markdown: memory.markdown,
      statements: memory.statements,
      generatedAt: memory.generatedAt,
    };
    row.status = "ready";
    row.errorCode = null;
    if (ledger) {
      Object.assign(ledger, {
        status: "succeeded",
        outcome: "accepted",
        versionId: id,
        salvaged: memory.salvaged,
      });
    }
    return { written: true as const, versionId: id };
  }

  async runEnded(...[run, end]: Parameters<RunLedger["runEnded"]>) {
    this.call("runEnded");
    const ledger = this.runs.find((r) => r.id === run.id);
    if (ledger) {
      Object.assign(ledger, {
        status: end.status,
        outcome: end.outcome,
        errorCode: end.errorCode,
        errorMessage: end.errorMessage,
      });
    }
    const row = this.row(run.subjectKey);
    row.status = end.memoryStatus;
    row.errorCode = end.errorCode;
    row.lastFailure = { message: end.errorMessage, attempt: run.attempt, nextAttemptAt: end.nextAttemptAt };
  }

  async runInterrupted(runId: string, _subjectId: string, _at: Date, code: RunErrorCode, message: string) {
    this.call("runInterrupted");
    const ledger = this.runs.find((r) => r.id === runId && r.status === "running");
    if (ledger)
      Object.assign(ledger, {
        status: "failed",
        outcome: "interrupted",
        errorCode: code,
        errorMessage: message,
      });
  }

  async spentOn(subjectKey: string, day: string) {
    this.call("spentOn");
    return this.spent.get(`${subjectKey} ${day}`) ?? {};
  }
}
