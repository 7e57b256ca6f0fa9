import { sql } from "drizzle-orm";
import type { Clock } from "../domain/clock";
import type { MemoryEvents } from "../domain/memory-events";
import type { Db } from "./client";

/**
 * At most this many subjects' MemoryAgents are notified per change; past that, material_changed_at
 * (always written) lets the daily sweep pick the rest up.
 */
export const MAX_NOTIFIED_SUBJECTS = 50;

/**
 * Records, per subject, when material last changed (the sweep uses it to skip subjects with nothing new),
 * then tells the subjects' MemoryAgents (`notify`), which debounce: no run per ingest call.
 */
export function createMemoryEvents(
  db: Db,
  clock: Clock,
  notify: (subjectIds: string[]) => Promise<void> = async () => {},
): MemoryEvents {
  const notifyAgents = async (subjectIds: string[]) => {
    const unique = [...new Set(subjectIds)];
    if (unique.length > 0) await notify(unique.slice(0, MAX_NOTIFIED_SUBJECTS));
  };
  return {
    async materialChanged(subjectIds) {
      if (subjectIds.length === 0) return;
      await db.execute(materialChangedStatement(subjectIds, clock.now()));
      await notifyAgents(subjectIds);
    },
    notifyAgents,
  };
}

/**
 * Marks `subjectIds` as having new material at `at`: one statement with one array parameter, whatever
 * the number of subjects (a multi-row VALUES list would hit Postgres' 65,535-parameter limit).
 */
export function materialChangedStatement(subjectIds: string[], at: Date | "now") {
  const time = at === "now" ? sql`now()` : sql`${at.toISOString()}::timestamptz`;
  return sql`
    insert into memories (subject_id, material_changed_at)
    select s, ${time} from unnest(${sql.param([...new Set(subjectIds)])}::text[]) as s
    on conflict (subject_id) do update set material_changed_at = excluded.material_changed_at`;
}
