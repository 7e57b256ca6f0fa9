/**
 * The daily sweep, generic over its ports: pages through subjects whose memory is missing or older than the
 * freshness window; subjects with nothing new only get checked_at bumped (inside the page query); the
 * others are handed to their MemoryAgent with start times spread over a window: the first `maxDispatch`
 * directly, the rest through a queue whose consumer does the same (sweep-fanout.ts). Work per invocation
 * is bounded (direct dispatches, plus database round trips and queue sends); where a bound stops it, the
 * resume key is saved and the next invocation goes on from there instead of starting over. A page that
 * fails is read once more; one that fails twice stops the sweep the same way, so one failed round trip
 * among hundreds neither loses the pages already done nor the subjects waiting for a send.
 */
import type { Clock } from "../domain/clock";
import type { MemoryAgents } from "./memory-agents-port";
import {
  dispatchToAgents,
  type FanOutLimits,
  planSends,
  type SweepQueue,
  worstCaseSends,
} from "./sweep-fanout";
import type { SweepSource } from "./sweep-source";

/** Attempts at one page: a retry costs a round trip, a failed page no longer costs the rest of the sweep. */
export const PAGE_ATTEMPTS = 2;

/** Where an unfinished sweep resumes (null: from the beginning). */
export interface SweepCursorStore {
  load(): Promise<string | null>;
  /** Null clears it. */
  save(after: string | null): Promise<void>;
}

export interface SweepOptions {
  ttlMs: number;
  pageSize: number;
  /** Subjects handed to their agents directly (one subrequest each); the rest go through the queue. */
  maxDispatch: number;
  /** Bounds database round trips (pages, cursor load and save) plus queue sends: the other subrequests. */
  maxRoundTrips: number;
  spreadMs: number;
  /** Direct dispatches run this many at a time. */
  concurrency: number;
  fanOut: FanOutLimits;
  /** Longest subject id, for the worst-case size of the sends a page can need. */
  maxSubjectIdLength: number;
}

export interface SweepReport {
  checked: number;
  skipped: number;
  dispatched: number;
  dispatchFailed: number;
  /** Subjects handed to the queue, in how many messages and sends. */
  enqueued: number;
  messages: number;
  sends: number;
  /** Subjects of sends that failed: the sweep stops and resumes before them next time. */
  enqueueFailed: number;
  pages: number;
  /** Page reads that failed (each retried once; a page failing twice stops the sweep). */
  pageFailures: number;
  roundTrips: number;
  /** Where this invocation started (a saved cursor), or null from the beginning. */
  resumedFrom: string | null;
  /** False when a bound (or a failed send) stopped the sweep; `resumeAfter` is saved for the next one. */
  complete: boolean;
  resumeAfter: string | null;
  durationMs: number;
}

export interface SweepDeps {
  store: SweepSource;
  agents: Pick<MemoryAgents, "requestRefresh">;
  queue: SweepQueue;
  cursor: SweepCursorStore;
  clock: Clock;
  /** Told of every failed page read (the sweep goes on or stops by itself). */
  pageFailed?: (error: unknown) => void;
}

export async function sweep(deps: SweepDeps, options: SweepOptions): Promise<SweepReport> {
  const started = deps.clock.now();
  const sweptAt = started.getTime();
  const staleBefore = new Date(sweptAt - options.ttlMs);
  const base = { sweptAt, spreadMs: options.spreadMs };
  const report: SweepReport = {
    checked: 0,
    skipped: 0,
    dispatched: 0,
    dispatchFailed: 0,
    enqueued: 0,
    messages: 0,
    sends: 0,
    enqueueFailed: 0,
    pages: 0,
    pageFailures: 0,
    roundTrips: 0,
    resumedFrom: null,
    complete: false,
    resumeAfter: null,
    durationMs: 0,
  };

  const resumedFrom = await deps.cursor.load();
  report.roundTrips++;
  report.resumedFrom = resumedFrom;
  let after = resumedFrom;
  /** Ids waiting for a send, and where to resume if that send fails (before the page the first came from). */
  let pending: string[] = [];
  let pendingFrom: string | null = null;
  let failed = false;

  /** Sends the full sends of `pending` (all of it when `all`); false if a send failed. */
  const flush = async (all: boolean): Promise<boolean> => {
    const sends = planSends(pending, base, options.fanOut);
    const count = all ? sends.length : sends.length - 1;
    for (let i = 0; i < count; i++) {
      const { messages } = sends[i]!;
      const ids = messages.reduce((n, m) => n + m.subjectIds.length, 0);
      report.roundTrips++;
      try {
        await deps.queue.send(messages);
      } catch {
        report.enqueueFailed += ids;
        return false;
      }
      report.sends++;
      report.messages += messages.length;
      report.enqueued += ids;
      pending = pending.slice(ids);
    }
    if (pending.length === 0) pendingFrom = null;
    return true;
  };

  /** The page after `from`, or null when both attempts failed. */
  const readPage = async (from: string | null) => {
    for (let attempt = 1; attempt <= PAGE_ATTEMPTS; attempt++) {
      report.roundTrips++;
      try {
        // A retry after a read whose answer was lost is still right: the subjects it bumped are no longer
        // stale (only the counts miss them), and the ones it would have dispatched are still there.
        return await deps.store.sweepPage({
          after: from,
          staleBefore,
          now: started,
          limit: options.pageSize,
        });
      } catch (error) {
        report.pageFailures++;
        deps.pageFailed?.(error);
      }
    }
    return null;
  };

  // Each page may need its round trips, the sends for what it leaves pending, and the cursor save.
  const pageReserve =
    PAGE_ATTEMPTS + worstCaseSends(options.pageSize, options.maxSubjectIdLength, options.fanOut) + 1;
  while (report.roundTrips + pageReserve + 1 <= options.maxRoundTrips) {
    const page = await readPage(after);
    if (page === null) break;
    report.pages++;
    report.checked += page.checked;
    report.skipped += page.skipped;
    if (page.lastKey === null) {
      report.complete = true;
      break;
    }

    const budget = Math.max(0, options.maxDispatch - report.dispatched - report.dispatchFailed);
    const direct = page.toDispatch.slice(0, budget);
    const { dispatched, failed: dispatchFailed } = await dispatchToAgents(
      deps.agents,
      direct,
      base,
      options.concurrency,
    );
    report.dispatched += dispatched;
    report.dispatchFailed += dispatchFailed.length;
    const queued = page.toDispatch.slice(direct.length);
    if (queued.length > 0) {
      if (pending.length === 0) pendingFrom = after;
      pending.push(...queued);
    }
    after = page.lastKey;
    if (!(await flush(false))) {
      failed = true;
      after = pendingFrom;
      break;
    }
    if (page.checked < options.pageSize) {
      report.complete = true;
      break;
    }
  }

  if (!failed && pending.length > 0 && !(await flush(true))) {
    failed = true;
    report.complete = false;
    after = pendingFrom;
  }

  report.resumeAfter = report.complete ? null : after;
  if (report.resumeAfter !== resumedFrom) {
    await deps.cursor.save(report.resumeAfter);
    report.roundTrips++;
  }
  report.durationMs = deps.clock.now().getTime() - started.getTime();
  return report;
}
