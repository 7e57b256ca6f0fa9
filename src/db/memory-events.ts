import { sql } from "drizzle-orm";
import type { Clock } from "../domain/clock";
import type { MemoryEvents } from "../domain/memory-events";
import type { Db } from "./client";
import { memories } from "./schema";

/** Records, per subject, when material last changed: the sweep uses it to skip subjects with nothing new. */
export function createMemoryEvents(db: Db, clock: Clock): MemoryEvents {
  return {
    async materialChanged(subjectIds) {
      if (subjectIds.length === 0) return;
      const now = clock.now();
      await db
        .insert(memories)
        .values([...new Set(subjectIds)].map((subjectId) => ({ subjectId, materialChangedAt: now })))
        .onConflictDoUpdate({
          target: memories.subjectId,
          set: { materialChangedAt: sql`excluded.material_changed_at` },
        });
    },
  };
}
