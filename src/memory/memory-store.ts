/** The memory side's persistence port (implemented over Postgres in db/memory-store.ts). */
import type { RunStats } from "../domain/generation";
import type { ItemKind } from "../domain/items";
import type { RunStatus, RunTrigger, Statement, Verdict } from "../domain/memory";

export type MemoryStatus = "none" | "generating" | "ready" | "failed" | "unavailable";

/** One cited item as served: metadata is null when the item is gone or no longer visible to the subject. */
export interface Citation {
  id: string;
  kind: ItemKind | null;
  title: string | null;
  occurredAt: string | null;
}

/** Everything GET /memory needs, read in one indexed query. */
export interface CurrentMemory {
  subjectId: string;
  status: MemoryStatus;
  errorCode: string | null;
  checkedAt: Date | null;
  version: {
    id: string;
    markdown: string;
    statements: Statement[];
    generatedAt: Date;
    redactedAt: Date | null;
    citations: Citation[];
  } | null;
}

export interface VersionSummary {
  id: string;
  createdAt: Date;
  runId: string | null;
  generatorModel: string;
  judgeModel: string;
  statementCount: number;
  redactedAt: Date | null;
  current: boolean;
}

export interface VersionDetail extends VersionSummary {
  markdown: string;
  statements: Statement[];
  verdict: Verdict;
  citations: Citation[];
}

export interface RunRecord {
  id: string;
  trigger: RunTrigger;
  status: RunStatus;
  attempt: number;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  turns: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  usage: RunStats["usage"];
  verdict: Verdict | null;
  outcome: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  versionId: string | null;
}

export interface Page<T> {
  entries: T[];
  nextCursor: string | null;
}

export interface RunStart {
  id: string;
  subjectId: string;
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
}

/** How an unsuccessful run ends, and what the memories row should say about it. */
export interface RunEnd {
  status: "rejected" | "failed";
  finishedAt: Date;
  stats: RunStats;
  verdict?: Verdict | null;
  outcome: string;
  errorCode: string;
  errorMessage: string;
  /** "generating" while retries remain, "failed" once they are exhausted, "unavailable" without an LLM. */
  memoryStatus: Extract<MemoryStatus, "generating" | "failed" | "unavailable">;
}

export type AcceptResult =
  | { written: true; versionId: string }
  | { written: false; reason: "cited_item_deleted" };

/** A version rewritten by redaction. */
export interface RedactedVersion {
  id: string;
  subjectId: string;
  markdown: string;
  statements: Statement[];
  citedItemIds: string[];
}

export interface SweepPage {
  /** Subjects examined in this page. */
  checked: number;
  /** Subjects with nothing new since their memory: checked_at bumped, nothing else. */
  skipped: number;
  /** Subjects that need a run, in key order. */
  toDispatch: string[];
  /** Key of the last subject examined, or null when the page was empty (the sweep is complete). */
  lastKey: string | null;
}

export interface MemoryStore {
  /** Memory row + current version + its citations' item metadata: one indexed query. Null if no row. */
  current(subjectId: string, viewerId?: string): Promise<CurrentMemory | null>;
  /** Whether material changed since the current memory was generated (the unchanged shortcut). */
  materialChangedSinceMemory(subjectId: string): Promise<boolean | null>;
  confirmUnchanged(subjectId: string, at: Date): Promise<void>;

  runStarted(run: RunStart): Promise<void>;
  /** New version + memories pointer + run row, in one atomic batch; refused if a cited item is gone. */
  runAccepted(
    run: RunStart,
    memory: AcceptedMemory,
    stats: RunStats,
    finishedAt: Date,
  ): Promise<AcceptResult>;
  runEnded(run: RunStart, end: RunEnd): Promise<void>;
  /** A run that never wrote an ending (its lease expired), recorded as failed. */
  runInterrupted(runId: string, subjectId: string, at: Date, code: string, message: string): Promise<void>;

  runs(subjectId: string, options: { limit: number; cursor?: string }): Promise<Page<RunRecord>>;
  versions(subjectId: string, options: { limit: number; cursor?: string }): Promise<Page<VersionSummary>>;
  version(subjectId: string, versionId: string): Promise<VersionDetail | null>;

  /**
   * Deletes one of the owner's items and, in the same atomic batch, redacts every memory version (of any
   * subject) that cited it. Null if the owner has no such item.
   */
  deleteItem(
    ownerId: string,
    itemId: string,
    at: Date,
  ): Promise<{ visibleTo: string[]; redactedSubjects: string[] } | null>;
  /** Erases the subject's items, memory, versions and runs; redacts other subjects' versions citing its items. */
  eraseSubject(subjectId: string, at: Date): Promise<{ visibleTo: string[]; redactedSubjects: string[] }>;

  /** One keyset page of the daily sweep over memories older than `staleBefore`. */
  sweepPage(options: {
    after: string | null;
    staleBefore: Date;
    now: Date;
    limit: number;
  }): Promise<SweepPage>;
}
