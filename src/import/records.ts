// src/import/records.ts: the contract between the pure parsers and their callers (the CLI and the Worker's email handler).
// Parsers are pure: no fs, no Node streams, no platform imports. They take text/bytes and yield events.
import type { ItemRecord } from "../domain/item-schema";

/**
 * One item as POST /items takes it, without what the caller fills in: the `source` (--source or the
 * format's default) and the shares.
 */
export type ImportItem = Omit<ItemRecord, "source" | "sharedWith" | "links"> & {
  links?: Omit<NonNullable<ItemRecord["links"]>[number], "source">[];
};

/** Where in the input a record came from, for reports: a file path and a position inside it (message number, line, event index). */
export interface RecordPosition {
  file: string;
  position: string;
}

export type ImportEvent =
  | { type: "item"; item: ImportItem; at: RecordPosition }
  | { type: "skipped"; reason: string; at: RecordPosition }
  | { type: "error"; message: string; at: RecordPosition };
