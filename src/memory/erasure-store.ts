/** The erasure port: deletions that reach derived memory, in one atomic write each (Postgres in db/pg-erasure-store.ts). */
import type { Statement } from "../domain/memory";

/** A version rewritten by redaction. */
export interface RedactedVersion {
  id: string;
  subjectId: string;
  markdown: string;
  statements: Statement[];
  citedItemIds: string[];
}

export interface Removal {
  /** Subjects who could see a removed item (their material changed). */
  visibleTo: string[];
  /** Subjects whose memory versions were redacted. */
  redactedSubjects: string[];
}

/** What DELETE /items/:id did for the caller. */
export type ItemRemoval =
  | { outcome: "deleted" | "left"; removal: Removal }
  /** The caller sees the item only through a team: leaving the team is how to stop seeing it. */
  | { outcome: "via_team" }
  | { outcome: "not_found" };

export interface ErasureStore {
  /**
   * The owner deletes the item; a sharee named in its shared_with leaves it (only they are removed from the
   * share). Either way, in the same atomic batch, every memory version that cites it and whose subject can
   * no longer see it is redacted.
   */
  removeItem(callerKey: string, itemId: string, at: Date): Promise<ItemRemoval>;
  /**
   * Erases the subject: its items, memory, versions, runs and inbound address; redacts other subjects'
   * versions citing its items. What others shared with it, and its team memberships, are the workspace's.
   */
  eraseSubject(subjectKey: string, at: Date): Promise<Removal>;
}
