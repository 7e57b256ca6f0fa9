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

export interface ErasureStore {
  /**
   * Deletes one of the owner's items and, in the same atomic batch, redacts every memory version (of any
   * subject) that cited it. Null if the owner has no such item.
   */
  deleteItem(ownerId: string, itemId: string, at: Date): Promise<Removal | null>;
  /** Erases the subject's items, memory, versions and runs; redacts other subjects' versions citing its items. */
  eraseSubject(subjectId: string, at: Date): Promise<Removal>;
}
