/** The memory read model's port: what GET /memory, the history and the ledger listing read (Postgres in db/pg-memory-reader.ts). */
import type { RunStats } from "../domain/generation";
import type { ItemKind } from "../domain/item-schema";
import type {
  MemoryStatus,
  RemovedStatement,
  RunErrorCode,
  RunStatus,
  RunTrigger,
  Salvage,
  Statement,
  SupersededStatement,
  Verdict,
} from "../domain/memory";

/** One cited item as served: metadata is null when the item is gone or no longer visible to the subject. */
export interface Citation {
  id: string;
  kind: ItemKind | null;
  title: string | null;
  occurredAt: string | null;
}

export interface LastFailure {
  message: string;
  attempt: number | null;
  nextAttemptAt: Date | null;
}

/** Everything GET /memory needs, read in one indexed query. */
export interface CurrentMemory {
  subjectKey: string;
  status: MemoryStatus;
  errorCode: RunErrorCode | null;
  /**
   * The last unsuccessful run, for a subject who has no memory yet ("retrying", "failed"): its reason in
   * words, its attempt and the next one's time. Absent where only a served version is kept (the edge cache).
   */
  lastFailure?: LastFailure | null;
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

/** A version in the history list: also how many statements were taken out after it was written, and why. */
export interface VersionListEntry extends VersionSummary {
  takenOut: { dismissed: number; redacted: number };
}

export interface VersionDetail extends VersionSummary {
  markdown: string;
  statements: Statement[];
  verdict: Verdict;
  citations: Citation[];
  /** When its run began research (the version's creation time if the run row is gone). */
  generatedAt: Date;
  /** Statements taken out after it was written (redacted, dismissed). */
  removed: RemovedStatement[];
  /** What its run dropped from the draft and found superseded (for a diff's reasons); null without a run row. */
  run: { salvaged: Salvage | null; superseded: SupersededStatement[] | null } | null;
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
  errorCode: RunErrorCode | null;
  errorMessage: string | null;
  versionId: string | null;
  /** Statements the run dropped from its draft (and why) before the memory was accepted; null if none. */
  salvaged: Salvage | null;
  /** Statements of the previous memory the judge found superseded by newer items; null if none. */
  superseded: SupersededStatement[] | null;
}

export interface Page<T> {
  entries: T[];
  nextCursor: string | null;
}

export interface MemoryReader {
  /** Memory row + current version + its citations' item metadata: one indexed query. Null if no row. */
  current(subjectKey: string): Promise<CurrentMemory | null>;
  runs(subjectKey: string, options: { limit: number; cursor?: string }): Promise<Page<RunRecord>>;
  versions(subjectKey: string, options: { limit: number; cursor?: string }): Promise<Page<VersionListEntry>>;
  version(subjectKey: string, versionId: string): Promise<VersionDetail | null>;
  /** The version that was current at `at`: the newest created at or before it (null: none yet). */
  versionAt(subjectKey: string, at: Date): Promise<VersionDetail | null>;
  /** The version created just before `versionId` (null: it is the first, or it does not exist). */
  versionBefore(subjectKey: string, versionId: string): Promise<VersionDetail | null>;
}
