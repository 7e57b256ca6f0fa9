/** The runs ledger's port: what one run writes, from start to end (Postgres in db/pg-run-ledger.ts). */
import type { RunStats } from "../domain/generation";
import type {
  MemoryStatus,
  RunErrorCode,
  RunTrigger,
  Salvage,
  Statement,
  SupersededStatement,
  Verdict,
} from "../domain/memory";
import type { Dismissal } from "../domain/statements";
import type { ModelSpend } from "../domain/usage";
import type { VersionAnnouncement } from "../domain/webhook-events";

export interface RunStart {
  id: string;
  subjectKey: string;
  trigger: RunTrigger;
  attempt: number;
  queuedAt: Date;
  startedAt: Date;
}

export interface AcceptedMemory {
  markdown: string;
  statements: Statement[];
  citedItemIds: string[];
  generatorModel: string;
  judgeModel: string;
  verdict: Verdict;
  /** The moment research began: material changed after it is not in this memory. */
  generatedAt: Date;
  /** What was dropped from the draft before it was accepted, or null when nothing was. */
  salvaged: Salvage | null;
  /** Statements of the previous memory the judge found superseded by newer items (null or empty: none). */
  superseded?: SupersededStatement[] | null;
  /**
   * The newest dismissal the run respected (RunLedger.dismissals' seq): the version is refused if the
   * subject dismissed anything after it. Absent: not checked.
   */
  dismissalSeq?: number;
  /** The webhook event the version announces, recorded with it (absent: webhooks off). */
  announcement?: VersionAnnouncement;
}

/** How an unsuccessful run ends, and what the memories row should say about it. */
export interface RunEnd {
  status: "rejected" | "failed";
  finishedAt: Date;
  stats: RunStats;
  verdict?: Verdict | null;
  outcome: string;
  errorCode: RunErrorCode;
  errorMessage: string;
  /**
   * "retrying" while the agent backs off before another attempt, "failed" once the attempts are exhausted,
   * "unavailable" without an LLM ("generating" when the next run starts at once).
   */
  memoryStatus: Extract<MemoryStatus, "generating" | "retrying" | "failed" | "unavailable">;
  /** When the agent tries again by itself (status "retrying"); null when it will not. */
  nextAttemptAt: Date | null;
}

export type AcceptResult =
  | { written: true; versionId: string }
  | { written: false; reason: "cited_item_deleted" | "statement_dismissed" };

/** What the subject dismissed, newest first, and the seq of the newest (0 when none). */
export interface RunDismissals {
  dismissals: (Dismissal & { seq: number })[];
  seq: number;
}

export interface RunLedger {
  /** Whether material changed since the current memory was generated (the unchanged shortcut); null if none. */
  materialChangedSinceMemory(subjectKey: string): Promise<boolean | null>;
  confirmUnchanged(subjectKey: string, at: Date): Promise<void>;
  /** The subject's dismissals, which the run must respect (see AcceptedMemory.dismissalSeq). */
  dismissals(subjectKey: string): Promise<RunDismissals>;
  /** The run's row (running) and the memories row (generating); closes any older row left running. */
  runStarted(run: RunStart): Promise<void>;
  /**
   * New version + memories pointer + run row, in one atomic batch; refused if a cited item is gone, or if
   * the subject dismissed a statement after `dismissalSeq`.
   */
  runAccepted(
    run: RunStart,
    memory: AcceptedMemory,
    stats: RunStats,
    finishedAt: Date,
  ): Promise<AcceptResult>;
  /**
   * The run's ending; the usage ledger (usage_daily) adds the run and its tokens in the same batch, as
   * runAccepted and runInterrupted do.
   */
  runEnded(run: RunStart, end: RunEnd): Promise<void>;
  /** What the subject's runs spent per model on `day` (YYYY-MM-DD, UTC), as the usage ledger holds it. */
  spentOn(subjectKey: string, day: string): Promise<Record<string, ModelSpend>>;
  /** A run that never wrote an ending (its lease expired), recorded as failed. */
  runInterrupted(
    runId: string,
    subjectKey: string,
    at: Date,
    code: RunErrorCode,
    message: string,
  ): Promise<void>;
}
