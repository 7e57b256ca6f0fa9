/** What the workspace side tells the memory side when material changes (memory/material-changes.ts). */
export type MaterialChangeCause = "ingest" | "delete";

export interface MemoryEvents {
  /**
   * Items these subjects may see were created, updated or deleted: recorded for every one of them; the
   * agents of `notify` (by default all of them) are asked for a refresh, once each, for `cause`.
   */
  materialChanged(subjectKeys: string[], cause: MaterialChangeCause, notify?: string[]): Promise<void>;
  /** The change was already recorded in the same transaction as the items (ingest): only tell the agents. */
  notifyAgents(subjectKeys: string[], cause: MaterialChangeCause): Promise<void>;
}

/** The record of material changes in the database. */
export interface MaterialChangeRecorder {
  /** Stamps material_changed_at = now on these subjects' memories rows (creating the rows if needed). */
  record(subjectKeys: string[]): Promise<void>;
}
