/** The erasure port: deletions that reach derived memory, in one atomic write each (Postgres in db/pg-erasure-store.ts). */
import type { Statement } from "../domain/memory";
import type { AccessLoss } from "../domain/workspace-store";

/** A version rewritten by redaction. */
export interface RedactedVersion {
  id: string;
  subjectKey: string;
  markdown: string;
  statements: Statement[];
  citedItemIds: string[];
}

/** Who could see what was removed (their material changed), and whose memory versions were redacted. */
export type Removal = AccessLoss;

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
  removeItem(subjectKey: string, itemId: string, at: Date): Promise<ItemRemoval>;
  /**
   * Erases the subject: its items, memory, versions, runs, dismissals and inbound address, and its place in
   * the workspace (its membership, its teams, every share naming it); redacts other subjects' versions (and
   * drops their dismissals) citing its items. A later request with the same token joins the workspace
   * afresh, as a newcomer would.
   */
  eraseSubject(subjectKey: string, at: Date): Promise<Removal>;
}
