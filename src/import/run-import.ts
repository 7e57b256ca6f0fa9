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

export async function runImport(options: RunOptions): Promise<ImportSummary> {
  const summary: ImportSummary = {
    format: options.format,
    files: options.files,
    records: 0,
    items: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    skipped: 0,
    errors: [],
    skippedReasons: {},
  };
  const seen = new Set<string>();
  const batcher = new Batcher();
  const inFlight = new Set<Promise<void>>();
  const concurrency = options.concurrency ?? 4;
  const sampleCount = options.sampleCount ?? 3;

  const error = (at: RecordPosition, message: string) => {
    if (summary.errors.length < MAX_REPORTED_ERRORS)
      summary.errors.push({ file: at.file, position: at.position, message });
  };
  const skip = (reason: string) => {
    summary.skipped++;
    summary.skippedReasons[reason] = (summary.skippedReasons[reason] ?? 0) + 1;
  };
  const dispatch = async (batch: Pending[] | null) => {
    if (!batch || !options.send) return;
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    const send = options.send;
    const task = send(batch).then((outcomes) => {
      for (const outcome of outcomes) {
        if (outcome.type === "stored") summary[outcome.status]++;
        else error(outcome.entry.at, outcome.message);
      }
      options.onProgress?.(summary);
    });
    const tracked = task.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  for await (const event of options.events) {
    summary.records++;
    if (event.type === "skipped") skip(event.reason);
    else if (event.type === "error") error(event.at, event.message);
    else if (seen.has(event.item.externalId)) skip("repeats an earlier record's id");
    else {
      seen.add(event.item.externalId);
      summary.items++;
      const item = toApiItem(event.item satisfies ImportItem, options.source);
      if (options.samples && options.samples.length < sampleCount) options.samples.push(item);
      await dispatch(batcher.add(pending(item, event.at)));
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
