/** The sweep's resume key in Postgres: one row per sweep name in sweep_cursors, absent when none. */
import { eq, sql } from "drizzle-orm";
import type { SweepCursorStore } from "../memory/sweep-plan";
import type { Db } from "./client";
import { sweepCursors } from "./schema";

export function createSweepCursorStore(db: Db, name = "daily"): SweepCursorStore {
  return {
    async load() {
      const [row] = await db
        .select({ afterKey: sweepCursors.afterKey })
        .from(sweepCursors)
        .where(eq(sweepCursors.name, name));
      return row?.afterKey ?? null;
    },
    async save(after) {
      if (after === null) {
        await db.delete(sweepCursors).where(eq(sweepCursors.name, name));
        return;
      }
      await db
        .insert(sweepCursors)
        .values({ name, afterKey: after })
        .onConflictDoUpdate({
          target: sweepCursors.name,
          set: { afterKey: sql`excluded.after_key`, updatedAt: sql`now()` },
        });
    },
  };
}
