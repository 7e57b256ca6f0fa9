import { sql } from "drizzle-orm";
import type { Clock } from "../domain/clock";
import type { MemoryEvents } from "../domain/memory-events";
import type { Db } from "./client";
import { memories } from "./schema";

/**
 * At most this many subjects' MemoryAgents are notified per ingest call; past that, material_changed_at
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
  return {
    async materialChanged(subjectIds) {
      const unique = [...new Set(subjectIds)];
      if (unique.length === 0) return;
      const now = clock.now();
      await db
        .insert(memories)
        .values(unique.map((subjectId) => ({ subjectId, materialChangedAt: now })))
        .onConflictDoUpdate({
          target: memories.subjectId,
          set: { materialChangedAt: sql`excluded.material_changed_at` },
        });
      await notify(unique.slice(0, MAX_NOTIFIED_SUBJECTS));
    },
  };
}
