/**
 * The daily sweep, generic over its ports: pages through subjects whose memory is missing or older than the
 * freshness window; subjects with nothing new only get checked_at bumped (inside the page query); the
 * others are handed to their MemoryAgent with start times spread over a window. Work per invocation is
 * bounded by pages and dispatches, so one invocation stays inside the platform's subrequest and CPU limits.
 */
import type { Clock } from "../domain/clock";
import type { MemoryAgents } from "./memory-agents";
import type { MemoryStore } from "./memory-store";

export interface SweepOptions {
  ttlMs: number;
  pageSize: number;
  maxDispatch: number;
  /** Bounds the database round trips (and so the subrequests) of one invocation. */
  maxPages: number;
  spreadMs: number;
  /** Dispatches run this many at a time. */
  concurrency: number;
}

export interface SweepReport {
  checked: number;
  skipped: number;
  dispatched: number;
  dispatchFailed: number;
  pages: number;
  /** False when a bound stopped the sweep early; `resumeAfter` is where the next invocation would go on. */
  complete: boolean;
  resumeAfter: string | null;
  durationMs: number;
}

export interface SweepDeps {
  store: MemoryStore;
  agents: MemoryAgents;
  clock: Clock;
}

export async function sweep(deps: SweepDeps, options: SweepOptions): Promise<SweepReport> {
  const started = deps.clock.now();
  const staleBefore = new Date(started.getTime() - options.ttlMs);
  const report: SweepReport = {
    checked: 0,
    skipped: 0,
    dispatched: 0,
    dispatchFailed: 0,
    pages: 0,
    complete: false,
    resumeAfter: null,
    durationMs: 0,
  };
  let after: string | null = null;

  while (report.pages < options.maxPages) {
    const page = await deps.store.sweepPage({ after, staleBefore, now: started, limit: options.pageSize });
    report.pages++;
    report.checked += page.checked;
    report.skipped += page.skipped;
    if (page.lastKey === null) {
      report.complete = true;
      break;
    }

    const budget = options.maxDispatch - report.dispatched - report.dispatchFailed;
    const batch = page.toDispatch.slice(0, Math.max(0, budget));
    await dispatch(deps, batch, started.getTime(), options, report);
    if (batch.length < page.toDispatch.length) {
      // Out of dispatch budget mid-page: resume right after the last subject handed over.
      after = batch.at(-1) ?? after;
      break;
    }
    after = page.lastKey;
    if (page.checked < options.pageSize) {
      report.complete = true;
      break;
    }
  }

  report.resumeAfter = report.complete ? null : after;
  report.durationMs = deps.clock.now().getTime() - started.getTime();
  return report;
}

async function dispatch(
  deps: SweepDeps,
  subjectIds: string[],
  now: number,
  options: SweepOptions,
  report: SweepReport,
): Promise<void> {
  for (let i = 0; i < subjectIds.length; i += options.concurrency) {
    const chunk = subjectIds.slice(i, i + options.concurrency);
    const results = await Promise.allSettled(
      chunk.map((id) =>
        deps.agents.requestRefresh(id, "sweep", { notBefore: now + spreadOffset(id, options.spreadMs) }),
      ),
    );
    for (const r of results) {
      if (r.status === "fulfilled") report.dispatched++;
      else report.dispatchFailed++;
    }
  }
}

/** A stable offset in [0, spreadMs) from the subject id (FNV-1a): spreads starts without knowing the total. */
export function spreadOffset(subjectId: string, spreadMs: number): number {
  if (spreadMs <= 0) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < subjectId.length; i++) {
    hash ^= subjectId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return Math.floor((hash / 2 ** 32) * spreadMs);
}
