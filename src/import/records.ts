// src/import/records.ts: the contract between the pure parsers and their callers (the CLI and the Worker's email handler).
// Parsers are pure: no fs, no Node streams, no platform imports. They take text/bytes and yield events.

export type ImportKind =
  | "email" | "message" | "task" | "doc" | "call" | "event" | "file" | "pull_request" | "contact" | "note";

/** One item as POST /items takes it (the `source` is filled by the caller: --source or the format's default). */
export interface ImportItem {
  externalId: string;
  kind: ImportKind;
  title?: string;
  body: string;
  author?: string;
  participants?: string[];
  occurredAt: string; // ISO 8601 with zone
  url?: string;
  metadata?: Record<string, unknown>;
  links?: { externalId: string; kind?: string }[];
}

/** Where in the input a record came from, for reports: a file path and a position inside it (message number, line, event index). */
export interface RecordPosition {
  file: string;
  position: string;
}

export type ImportEvent =
  | { type: "item"; item: ImportItem; at: RecordPosition }
  | { type: "skipped"; reason: string; at: RecordPosition }
  | { type: "error"; message: string; at: RecordPosition };
