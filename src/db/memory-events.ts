import { sql } from "drizzle-orm";
import type { Clock } from "../domain/clock";
import type { MaterialChangeRecorder } from "../domain/memory-events";
import type { Db } from "./client";

/**
 * Records, per subject, when material last changed: the sweep and the agent's unchanged shortcut use it.
 * Telling the agents is memory/material-changes.ts's job, not this adapter's.
 */
export function createMaterialChangeRecorder(db: Db, clock: Clock): MaterialChangeRecorder {
  return {
    async record(subjectKeys) {
      if (subjectKeys.length === 0) return;
      await db.execute(materialChangedStatement(subjectKeys, clock.now()));
    },
  };
}

/**
 * Marks `subjectKeys`, and the members of any team among them, as having new material at `at`: one
 * statement with one array parameter, whatever the number of subjects (a multi-row VALUES list would hit
 * Postgres' 65,535-parameter limit). Ingest runs it inside its own transaction, so the notices commit with
 * the items.
 */
export function materialChangedStatement(subjectKeys: string[], at: Date | "now") {
  const time = at === "now" ? sql`now()` : sql`${at.toISOString()}::timestamptz`;
  const keys = sql`${sql.param([...new Set(subjectKeys)])}::text[]`;
  return sql`
    insert into memories (subject_id, material_changed_at)
    select s, ${time} from (
      select unnest(${keys}) as s
      union select tm.member_key from team_members tm where tm.team_key = any(${keys})) as affected
    on conflict (subject_id) do update set material_changed_at = excluded.material_changed_at`;
}
