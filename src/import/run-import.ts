/**
 * The import pipeline: reads events, drops repeated externalIds, batches items, keeps several batches in
 * flight, and counts everything for the summary. Platform-neutral: no fs, no process.
 */

import type { UpsertStatus } from "../domain/items";
import { type ApiItem, Batcher, type Pending, pending, toApiItem } from "./batches";
import type { ImportEvent, ImportItem, RecordPosition } from "./records";

/** What became of one sent item. */
export type Outcome =
  | { type: "stored"; entry: Pending; status: UpsertStatus }
  | { type: "failed"; entry: Pending; message: string };

export interface ImportSummary {
  format: string;
  files: number;
  records: number;
  items: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  errors: { file: string; position: string; message: string }[];
  /** How many records each skip reason accounts for. */
  skippedReasons: Record<string, number>;
}

export interface RunOptions {
  format: string;
  files: number;
  source: string;
  events: AsyncIterable<ImportEvent>;
  /** Sends one batch; absent in a dry run. */
  send?: (batch: Pending[]) => Promise<Outcome[]>;
  concurrency?: number;
  /** Collects the first few items (a dry run prints them). */
  samples?: ApiItem[];
  sampleCount?: number;
  onProgress?: (summary: ImportSummary) => void;
}

export const MAX_REPORTED_ERRORS = 10_000;

export function emptySummary(format: string, files: number): ImportSummary {
  return {
    format,
    files,
    records: 0,
    items: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    skipped: 0,
    errors: [],
    skippedReasons: {},
  };
}

/**
 * The counting every import shares (the CLI's and the service's): each event is a record; a skip counts
 * under its reason, an error is kept (the first `maxErrors`), an item whose externalId repeats an earlier
 * record's is skipped, and every other item is one to send.
 */
export class ImportTally {
  private readonly seen = new Set<string>();

  constructor(
    readonly summary: ImportSummary,
    private readonly source: string,
    private readonly maxErrors = MAX_REPORTED_ERRORS,
  ) {}

  /** What `event` would send (without counting it): its pending item, or null for a skip, an error or a repeat. */
  peek(event: ImportEvent): Pending | null {
    if (event.type !== "item" || this.seen.has(event.item.externalId)) return null;
    return pending(toApiItem(event.item satisfies ImportItem, this.source), event.at);
  }

  /** Counts `event` as the next record. */
  count(event: ImportEvent): void {
    this.summary.records++;
    if (event.type === "skipped") this.skip(event.reason);
    else if (event.type === "error") this.error(event.at, event.message);
    else if (this.seen.has(event.item.externalId)) this.skip("repeats an earlier record's id");
    else {
      this.seen.add(event.item.externalId);
      this.summary.items++;
    }
  }

  /** A record an earlier run already counted: only its externalId is remembered (so a repeat stays a repeat). */
  replay(event: ImportEvent): void {
    if (event.type === "item") this.seen.add(event.item.externalId);
  }

  /** What became of a sent batch. */
  stored(outcomes: Outcome[]): void {
    for (const outcome of outcomes) {
      if (outcome.type === "stored") this.summary[outcome.status]++;
      else this.error(outcome.entry.at, outcome.message);
    }
  }

  private error(at: RecordPosition, message: string): void {
    if (this.summary.errors.length < this.maxErrors)
      this.summary.errors.push({ file: at.file, position: at.position, message });
  }

  private skip(reason: string): void {
    this.summary.skipped++;
    this.summary.skippedReasons[reason] = (this.summary.skippedReasons[reason] ?? 0) + 1;
  }
}

export async function runImport(options: RunOptions): Promise<ImportSummary> {
  const tally = new ImportTally(emptySummary(options.format, options.files), options.source);
  const { summary } = tally;
  const batcher = new Batcher();
  const inFlight = new Set<Promise<void>>();
  const concurrency = options.concurrency ?? 4;
  const sampleCount = options.sampleCount ?? 3;

  const dispatch = async (batch: Pending[] | null) => {
    if (!batch || !options.send) return;
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    const send = options.send;
    const task = send(batch).then((outcomes) => {
      tally.stored(outcomes);
      options.onProgress?.(summary);
    });
    const tracked = task.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  for await (const event of options.events) {
    const entry = tally.peek(event);
    tally.count(event);
    if (entry) {
      if (options.samples && options.samples.length < sampleCount) options.samples.push(entry.item);
      await dispatch(batcher.add(entry));
    }
    if (summary.records % 500 === 0) options.onProgress?.(summary);
  }
  await dispatch(batcher.flush());
  await Promise.all(inFlight);
  options.onProgress?.(summary);
  return summary;
}

/** 0 when everything was imported or deliberately skipped, 1 when some records failed. */
export function exitCodeOf(summary: ImportSummary): 0 | 1 {
  return summary.errors.length > 0 ? 1 : 0;
}
