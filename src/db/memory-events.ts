import { sql } from "drizzle-orm";
import type { Clock } from "../domain/clock";
import type { Db } from "./client";
import { memories } from "./schema";

export interface MaterialChangeRecorder {
  /** Stamps material_changed_at = now on these subjects' memories rows (creating the rows if needed). */
  record(subjectIds: string[]): Promise<void>;
}

/**
 * Records, per subject, when material last changed: the sweep and the agent's unchanged shortcut use it.
 * Telling the agents is the composition root's job (composition.ts), not this adapter's.
 */
export function createMaterialChangeRecorder(db: Db, clock: Clock): MaterialChangeRecorder {
  return {
    async record(subjectIds) {
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
    },
  };
}
