/** The sweep's port onto stale memories (Postgres in db/pg-sweep-source.ts). */

export interface SweepPage {
  /** Subjects examined in this page. */
  checked: number;
  /** Subjects with nothing new since their memory: checked_at bumped, nothing else. */
  skipped: number;
  /** Subjects that need a run, in key order. */
  toDispatch: string[];
  /** Key of the last subject examined, or null when the page was empty (the sweep is complete). */
  lastKey: string | null;
}

export interface SweepSource {
  /** One keyset page of the daily sweep over memories older than `staleBefore`. */
  sweepPage(options: {
    after: string | null;
    staleBefore: Date;
    now: Date;
    limit: number;
  }): Promise<SweepPage>;
}
