/**
 * The daily sweep, generic over its ports: pages through subjects whose memory is missing or older than the
 * freshness window; subjects with nothing new only get checked_at bumped (inside the page query); the
 * others are handed to their MemoryAgent with start times spread over a window: the first `maxDispatch`
 * directly, the rest through a queue whose consumer does the same (sweep-fanout.ts). Work per invocation
 * is bounded (direct dispatches, plus database round trips and queue sends); where a bound stops it, the
 * resume key is saved and the next invocation goes on from there instead of starting over. Every
 * database round trip (cursor load, page, cursor save) is tried twice: a page that fails twice stops the
 * sweep like a bound, so one bad round trip among hundreds neither loses the pages already done nor the
 * subjects waiting for a send, and the report is returned (and logged) whatever failed.
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

/** Attempts at one database round trip; each counts against the round-trip bound. */
export const ROUND_TRIP_ATTEMPTS = 2;

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
  failedRoundTrips: number;
  roundTrips: number;
  /** Where this invocation started (a saved cursor), or null from the beginning. */
  resumedFrom: string | null;
  /** False when a bound (or a failed send) stopped the sweep; `resumeAfter` is saved for the next one. */
  complete: boolean;
  resumeAfter: string | null;
  /** False when `resumeAfter` should have been saved and could not be (or the cursor could not be read). */
  cursorSaved: boolean;
  durationMs: number;
}

export interface SweepDeps {
  store: SweepSource;
  agents: Pick<MemoryAgents, "requestRefresh">;
  queue: SweepQueue;
  cursor: SweepCursorStore;
  clock: Clock;
  /** Told of every failed database round trip (the sweep retries or stops by itself). */
  roundTripFailed?: (error: unknown) => void;
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
    failedRoundTrips: 0,
    roundTrips: 0,
    resumedFrom: null,
    complete: false,
    resumeAfter: null,
    cursorSaved: true,
    durationMs: 0,
  };
  const finish = () => {
    report.durationMs = deps.clock.now().getTime() - started.getTime();
    return report;
  };

  /** A database round trip, tried ROUND_TRIP_ATTEMPTS times; null when every attempt failed. */
  const roundTrip = async <T>(work: () => Promise<T>): Promise<{ value: T } | null> => {
    for (let attempt = 1; attempt <= ROUND_TRIP_ATTEMPTS; attempt++) {
      report.roundTrips++;
      try {
        return { value: await work() };
      } catch (error) {
        report.failedRoundTrips++;
        deps.roundTripFailed?.(error);
      }
    }
    return null;
  };

  const loaded = await roundTrip(() => deps.cursor.load());
  if (loaded === null) {
    // Nothing done, and where to resume is unknown: saving anything would overwrite it.
    report.cursorSaved = false;
    return finish();
  }
  const resumedFrom = loaded.value;
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
      const ids = messages.reduce((n, m) => n + m.subjectKeys.length, 0);
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

  // Each page may need its attempts, the sends for what it leaves pending, and the save's attempts.
  const pageReserve =
    ROUND_TRIP_ATTEMPTS +
    worstCaseSends(options.pageSize, options.maxSubjectIdLength, options.fanOut) +
    ROUND_TRIP_ATTEMPTS;
  while (report.roundTrips + pageReserve + 1 <= options.maxRoundTrips) {
    // A retry after a read whose answer was lost is still right: the subjects that read bumped are no
    // longer stale (only the counts miss them), and the ones it would have dispatched are still there.
    const from = after;
    const read = await roundTrip(() =>
      deps.store.sweepPage({ after: from, staleBefore, now: started, limit: options.pageSize }),
    );
    if (read === null) break;
    const page = read.value;
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
    const resumeAfter = report.resumeAfter;
    report.cursorSaved = (await roundTrip(() => deps.cursor.save(resumeAfter))) !== null;
  }
  return finish();
}
