/**
 * Imports through the service: POST /imports stores the uploaded file (in pieces, as it arrives, within
 * MAX_IMPORT_BYTES) and hands its id to the imports queue; the queue's consumer reads it with the importer's
 * own format readers (src/import/formats.ts, the CLI's) and stores the items through the same ingest as
 * POST /items, in batches, each batch's progress committed after it. A run stops at a batch boundary past
 * its budget and the next run resumes there (the records before it are read again only to remember their
 * externalIds), so an import of any size advances in bounded steps; re-importing a file writes nothing new,
 * the items' externalIds being the CLI's.
 */
import { AppError, notFound } from "../domain/errors";
import { itemInputSchema } from "../domain/item-schema";
import { isUuid } from "../domain/memory";
import { parseSubjectKey } from "../domain/workspaces";
import { MAX_BATCH_BYTES, MAX_BATCH_ITEMS, type Pending } from "../import/batches";
import { FORMATS } from "../import/formats";
import type { ImportFile } from "../import/import-format";
import {
  IMPORT_CHUNK_BYTES,
  type ImportJob,
  type ImportProgress,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_ERRORS,
  SERVICE_IMPORT_LIMITS,
} from "../import/import-jobs";
import { emptySummary, ImportTally, type Outcome } from "../import/run-import";
import type { Caller } from "./caller";
import { PlatformFailure, pieces, platform, uploadReader } from "./import-files";
import { ingestItems } from "./items";
import type { Services } from "./services";

export const IMPORT_FORMATS = Object.keys(FORMATS);

/** Pieces of the upload written in one statement (4 MB). */
const PIECES_PER_WRITE = 4;

export interface ImportRequest {
  format?: string;
  name?: string;
  source?: string;
  /** The file's modification time (default: now). */
  modifiedAt?: Date;
}

/**
 * The format: the one named, else the one whose file endings the name has (`.zip` is a Slack export);
 * a `.json` file fits several formats and must be named.
 */
export function importFormatOf(format: string | undefined, name: string): string {
  if (format !== undefined) {
    if (!IMPORT_FORMATS.includes(format)) {
      throw new AppError("bad_request", `Unknown format "${format}": one of ${IMPORT_FORMATS.join(", ")}`);
    }
    return format;
  }
  const lower = name.toLowerCase();
  if (lower.endsWith(".zip")) return "slack";
  const fits = IMPORT_FORMATS.filter((f) => FORMATS[f]!.extensions.some((ext) => lower.endsWith(ext)));
  if (fits.length === 1) return fits[0]!;
  throw new AppError(
    "bad_request",
    fits.length === 0
      ? `Cannot tell the format of "${name}": give ?format= (one of ${IMPORT_FORMATS.join(", ")})`
      : `"${name}" fits several formats (${fits.join(", ")}): give ?format=`,
  );
}

/** Stores the upload and queues its import: the import, `queued`. */
export async function createImport(
  services: Pick<Services, "imports" | "importQueue" | "audit" | "clock">,
  caller: Caller,
  request: ImportRequest,
  body: ReadableStream<Uint8Array> | null,
  declaredBytes: number | null,
): Promise<ImportJob> {
  services.audit.begin("import.create", caller.subjectKey);
  const name = request.name ?? "upload";
  const format = importFormatOf(request.format, name);
  if (declaredBytes !== null && declaredBytes > MAX_IMPORT_BYTES) throw tooLarge();
  if (!body) throw new AppError("bad_request", "The request has no body: send the file as the body");
  const store = services.imports;
  const id = crypto.randomUUID();
  const job = {
    id,
    workspaceId: caller.workspaceId,
    ownerKey: caller.subjectKey,
    format,
    name,
    source: request.source ?? FORMATS[format]!.defaultSource,
    modifiedAt: request.modifiedAt ?? services.clock.now(),
  };
  await store.begin(job, emptyProgress(format), services.clock.now());
  try {
    let seq = 0;
    let bytes = 0;
    let group: Uint8Array[] = [];
    for await (const piece of pieces(body, IMPORT_CHUNK_BYTES, MAX_IMPORT_BYTES, tooLarge)) {
      bytes += piece.length;
      group.push(piece);
      if (group.length === PIECES_PER_WRITE) {
        await store.append(id, seq, group);
        seq += group.length;
        group = [];
      }
    }
    await store.append(id, seq, group);
    seq += group.length;
    if (bytes === 0) throw new AppError("bad_request", "The file is empty");
    await store.uploaded(id, bytes, seq, services.clock.now());
    await services.importQueue.send(id);
  } catch (error) {
    await store.discard(id).catch(() => {});
    throw error;
  }
  const stored = await store.get(caller.subjectKey, id);
  if (!stored) throw new AppError("internal", "The import was stored but cannot be read back");
  return stored;
}

/** The caller's import; another user's (or none) is not_found. */
export async function getImport(services: Pick<Services, "imports">, caller: Caller, id: string) {
  const job = isUuid(id) ? await services.imports.get(caller.subjectKey, id) : null;
  if (!job) throw notFound("Import");
  return job;
}

export const IMPORTS_LISTED = 100;

/** The caller's imports, newest first (the last IMPORTS_LISTED). */
export function listImports(services: Pick<Services, "imports">, caller: Caller) {
  return services.imports.list(caller.subjectKey, IMPORTS_LISTED);
}

export function emptyProgress(format: string): ImportProgress {
  return { ...emptySummary(format, 1), rejected: 0 };
}

/** How much one run (one queue message) does before it hands the rest to the next. */
export interface ImportBudget {
  /** Items stored in this run, at most (then the run stops at the next batch boundary). */
  items: number;
  /** Milliseconds of this run, at most (checked at batch boundaries). */
  ms: number;
  /** A run holds the import this long; a run that died lets the next one take it over after it. */
  leaseMs: number;
  /** Runs an import may take in all; past them it fails (a file whose reading never ends). */
  maxRuns: number;
}

export const IMPORT_BUDGET: ImportBudget = {
  items: 5000,
  ms: 60_000,
  leaseMs: 15 * 60_000,
  maxRuns: 50,
};

export type ImportRunOutcome = "done" | "failed" | "more" | "busy" | "finished";

/**
 * One run of an import (one queue message): claims it, reads the file from its start, skipping the records
 * earlier runs committed, and stores the rest in batches until the file ends or the budget is spent.
 * `more`: the caller queues the next run. Database failures are thrown (the queue retries the message, and
 * the retry resumes from the last committed batch).
 */
export async function runImport(
  services: Services,
  importId: string,
  budget: ImportBudget = IMPORT_BUDGET,
): Promise<ImportRunOutcome> {
  const store = services.imports;
  const started = services.clock.now();
  const claim = await store.claim(importId, started, new Date(started.getTime() + budget.leaseMs));
  if (claim.kind !== "claimed") return claim.kind;
  const { job } = claim;
  const fail = async (failure: string, progress: ImportProgress) => {
    await store.finish(importId, { status: "failed", progress, failure }, services.clock.now());
    return "failed" as const;
  };
  if (job.runs > budget.maxRuns) {
    return fail(`the import did not finish within ${budget.maxRuns} runs`, job.progress);
  }
  const owner = parseSubjectKey(job.ownerKey);
  if ((await services.workspaces.admit(owner.workspace, owner.id)) === "removed") {
    return fail("the importing user is no longer a member of the workspace", job.progress);
  }
  const format = FORMATS[job.format];
  if (!format) return fail(`unknown format "${job.format}"`, job.progress);

  const resumeAt = job.progress.records;
  const progress: ImportProgress = structuredClone(job.progress);
  const tally = new ImportTally(progress, job.source, MAX_IMPORT_ERRORS);
  const file: ImportFile = { path: job.name, relative: job.name, size: job.bytes, mtime: job.modifiedAt };
  const events = format.read([file], {
    reader: uploadReader(store, job),
    limits: SERVICE_IMPORT_LIMITS,
  });
  let batch: Pending[] = [];
  let batchBytes = 0;
  let position = 0;
  let storedThisRun = 0;
  const commit = async () => {
    if (batch.length > 0) {
      if (!(await platform(store.running(importId)))) throw new ImportGone();
      tally.stored(await platform(storeBatch(services, job.ownerKey, batch, progress)));
      storedThisRun += batch.length;
    }
    batch = [];
    batchBytes = 0;
    await platform(store.progress(importId, progress, services.clock.now()));
  };
  const spent = () =>
    storedThisRun >= budget.items || services.clock.now().getTime() - started.getTime() >= budget.ms;
  try {
    for await (const event of events) {
      position++;
      if (position <= resumeAt) {
        tally.replay(event);
        continue;
      }
      const entry = tally.peek(event);
      const full =
        entry !== null &&
        batch.length > 0 &&
        (batch.length >= MAX_BATCH_ITEMS || batchBytes + entry.bytes > MAX_BATCH_BYTES);
      if (full) {
        // Committed before this record is counted: the progress covers exactly the records before it.
        await commit();
        if (spent()) {
          await platform(store.release(importId, progress, services.clock.now()));
          return "more";
        }
      }
      tally.count(event);
      if (entry) {
        batch.push(entry);
        batchBytes += entry.bytes;
      }
    }
    await commit();
  } catch (error) {
    if (error instanceof PlatformFailure) throw error.cause;
    if (error instanceof ImportGone) return "finished";
    const message = error instanceof Error ? error.message : String(error);
    // What was read before the reader stopped is stored, as the CLI imports what it read before an error.
    try {
      await commit();
    } catch (failure) {
      if (failure instanceof PlatformFailure) throw failure.cause;
      if (failure instanceof ImportGone) return "finished";
      throw failure;
    }
    return fail(`reading stopped after record ${progress.records}: ${message}`, progress);
  }
  if (progress.items === 0 && progress.errors.length > 0) {
    const first = progress.errors[0]!;
    return fail(`nothing in the file could be imported: ${first.message} (${first.position})`, progress);
  }
  await store.finish(importId, { status: "done", progress, failure: null }, services.clock.now());
  return "done";
}

/** Stores one batch as the owner's items: items the item schema refuses are rejected (with why), the rest stored. */
async function storeBatch(
  services: Services,
  ownerKey: string,
  batch: Pending[],
  progress: ImportProgress,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const valid: { entry: Pending; input: ReturnType<typeof itemInputSchema.parse> }[] = [];
  for (const entry of batch) {
    const parsed = itemInputSchema.safeParse(entry.item);
    if (parsed.success) valid.push({ entry, input: parsed.data });
    else {
      const issue = parsed.error.issues[0];
      progress.rejected++;
      const message = issue ? `${issue.path.join(".") || "item"} ${issue.message}` : "invalid item";
      outcomes.push({ type: "failed", entry, message: `refused: ${message}` });
    }
  }
  if (valid.length === 0) return outcomes;
  try {
    const stored = await ingestItems(
      services,
      ownerKey,
      valid.map((v) => v.input),
    );
    stored.forEach((outcome, i) => {
      outcomes.push({ type: "stored", entry: valid[i]!.entry, status: outcome.status });
    });
  } catch (error) {
    if (!(error instanceof AppError) || error.retryable || error.code === "database_unavailable") throw error;
    for (const { entry } of valid) {
      progress.rejected++;
      outcomes.push({ type: "failed", entry, message: `refused: ${error.message}` });
    }
  }
  return outcomes;
}

/** The import was erased with its owner (or ended) while this run held it: nothing more is written. */
class ImportGone extends Error {}

const tooLarge = () =>
  new AppError("payload_too_large", `The file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);
