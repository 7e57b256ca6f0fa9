/**
 * The dismissals port: what a subject (a user, or any member for a team) takes out of its memory as wrong
 * (Postgres in db/pg-dismissal-store.ts). Dismissing removes the statement from the current version at
 * once, exactly as a redaction does (the version is rewritten, its ETag changes), and records the
 * dismissal, which later runs respect (RunLedger.dismissals, agent/dismissal-check.ts).
 */
import type { Dismissal } from "../domain/statements";
import type { Citation } from "./memory-reader";

/** A dismissal as served: the statement's citations with their items' metadata. */
export interface DismissalView extends Dismissal {
  citations: Citation[];
}

export type DismissOutcome =
  | { kind: "dismissed"; dismissal: DismissalView; versionId: string }
  /** The current version holds no statement with that id (or there is no memory). */
  | { kind: "not_found" };

export interface DismissalStore {
  /** The subject's dismissals, newest first. */
  list(subjectKey: string): Promise<DismissalView[]>;
  /** Removes the statement from the current version and records the dismissal, in one atomic write. */
  dismiss(subjectKey: string, statementId: string, reason: string | null, at: Date): Promise<DismissOutcome>;
  /** Withdraws one: later runs may state it again. False when there is none. */
  withdraw(subjectKey: string, dismissalId: string): Promise<boolean>;
}
