/**
 * Imports through the service: one uploaded export file, read by the importer's own format readers off the
 * request path, its items stored as the caller's. The model, the limits the service reads a file within, and
 * the store's port.
 */
import type { ImportLimits } from "./limits";
import type { ImportSummary } from "./run-import";

export const IMPORT_STATUSES = ["uploading", "queued", "running", "done", "failed"] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

const MB = 1024 * 1024;

/** The largest upload (Workers take request bodies of up to 100 MB; the readers' memory is the tighter bound). */
export const MAX_IMPORT_BYTES = 25 * MB;
/** The upload is stored in pieces of this size, written a few at a time as the body arrives. */
export const IMPORT_CHUNK_BYTES = MB;

/**
 * The CLI's limits, lowered to what one Worker invocation's 128 MB hold: a file read whole (ics, vtt/srt,
 * Markdown, a Slack JSON file) and a Slack export in all (held whole, ~5 bytes of memory per byte) at 16 MB;
 * one streamed record (an email: postal-mime takes up to ~25 times its size) at 4 MB; a vCard value at 1 MB.
 */
export const SERVICE_IMPORT_LIMITS: ImportLimits = {
  maxFileBytes: 16 * MB,
  maxExportBytes: 16 * MB,
  maxRecordBytes: 4 * MB,
  maxValueBytes: MB,
};

/** Errors an import keeps (the rest are counted in `rejected` or only in the totals). */
export const MAX_IMPORT_ERRORS = 1000;

/** The importer's summary, with the items the service refused (each also one of `errors`). */
export interface ImportProgress extends ImportSummary {
  rejected: number;
}

export interface ImportJob {
  id: string;
  workspaceId: string;
  /** The caller's subject key: whose items the import writes, and who may read the import. */
  ownerKey: string;
  format: string;
  /** The uploaded file's name. */
  name: string;
  /** The items' `source`. */
  source: string;
  /** The file's modification time: the date of records without one of their own (as the CLI takes it). */
  modifiedAt: Date;
  bytes: number;
  chunks: number;
  status: ImportStatus;
  progress: ImportProgress;
  /** Why the import failed; null otherwise. */
  failure: string | null;
  /** Queue invocations that worked on it. */
  runs: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  updatedAt: Date;
}

export type NewImport = Pick<
  ImportJob,
  "id" | "workspaceId" | "ownerKey" | "format" | "name" | "source" | "modifiedAt"
>;

/** Who may work on an import now: the job, or why not. */
export type ImportClaim = { kind: "claimed"; job: ImportJob } | { kind: "busy" } | { kind: "finished" };

export interface ImportStore {
  /** A new import, `uploading`, with its progress at zero. */
  begin(job: NewImport, progress: ImportProgress, at: Date): Promise<void>;
  /** Stores the next pieces of the upload (numbered from `firstSeq`), one transaction. */
  append(id: string, firstSeq: number, pieces: Uint8Array[]): Promise<void>;
  /** The upload is whole: `queued`, with its size. */
  uploaded(id: string, bytes: number, chunks: number, at: Date): Promise<void>;
  /** An upload that did not complete: the import and its pieces are gone. */
  discard(id: string): Promise<void>;
  /** The caller's import; null when there is none of theirs by that id. */
  get(ownerKey: string, id: string): Promise<ImportJob | null>;
  /** The caller's imports, newest first. */
  list(ownerKey: string, limit: number): Promise<ImportJob[]>;
  /**
   * Takes the import for one run until `leaseUntil` (`running`, runs + 1): busy while another run holds it,
   * finished once it is done or failed (or gone).
   */
  claim(id: string, at: Date, leaseUntil: Date): Promise<ImportClaim>;
  /** Whether the import is still running (not erased with its owner, nor ended by another run). */
  running(id: string): Promise<boolean>;
  /** One piece of the upload. */
  piece(id: string, seq: number): Promise<Uint8Array | null>;
  /** Progress after a committed batch. */
  progress(id: string, progress: ImportProgress, at: Date): Promise<void>;
  /** The run stops here and the next one may start at once (the lease is let go). */
  release(id: string, progress: ImportProgress, at: Date): Promise<void>;
  /** An import no run could finish (its messages ran out of retries): failed with why, its summary kept. */
  abandon(id: string, failure: string, at: Date): Promise<void>;
  /** The import ended (done or failed): its summary, why it failed, and its pieces deleted. */
  finish(
    id: string,
    outcome: { status: "done" | "failed"; progress: ImportProgress; failure: string | null },
    at: Date,
  ): Promise<void>;
}

/** Where a stored upload goes to be read (the imports queue); throws when it could not be handed over. */
export interface ImportQueue {
  send(importId: string): Promise<void>;
}
