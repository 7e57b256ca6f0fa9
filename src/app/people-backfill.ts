/**
 * Items stored before people evidence existed get it: each scheduled run derives the people of a bounded
 * number of them (PEOPLE_BACKFILL), batch by batch, until none is left; a run with nothing to do costs one
 * indexed read. What a batch stores changes its owners' item versions, so their people views are resolved
 * again on their next read.
 */
import type { Services } from "./services";

/** Items per batch (one read and one write) and batches per run: 2,000 items, 8 round trips at most. */
export const PEOPLE_BACKFILL = { batch: 500, batches: 4 } as const;

export interface PeopleBackfillReport {
  /** Pending items read. */
  scanned: number;
  /** Of those, items that got people rows (the rest had them already). */
  derived: number;
  /** Pending items may be left for the next run. */
  more: boolean;
}

export async function backfillPeople(
  services: Pick<Services, "people">,
  bounds: { batch: number; batches: number } = PEOPLE_BACKFILL,
): Promise<PeopleBackfillReport> {
  const report: PeopleBackfillReport = { scanned: 0, derived: 0, more: false };
  for (let i = 0; i < bounds.batches; i++) {
    const { scanned, derived } = await services.people.backfill(bounds.batch);
    report.scanned += scanned;
    report.derived += derived;
    report.more = scanned === bounds.batch;
    if (!report.more) break;
  }
  return report;
}
