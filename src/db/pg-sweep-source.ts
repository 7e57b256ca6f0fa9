/** SweepSource over Postgres: one keyset page, with the unchanged subjects' checked_at bumped in the same statement. */
import { sql } from "drizzle-orm";
import type { SweepSource } from "../memory/sweep-source";
import type { Db } from "./client";
import { parseStringArray } from "./sql-values";

export function createPgSweepSource(db: Db): SweepSource {
  return {
    async sweepPage({ after, staleBefore, now, limit }) {
      const result = await db.execute(sql`
        with page as (
          select subject_id, current_version_id, generated_at, material_changed_at
          from memories
          where ${after === null ? sql`true` : sql`subject_id > ${after}`}
            and coalesce(greatest(generated_at, checked_at), '-infinity'::timestamptz) < ${staleBefore.toISOString()}::timestamptz
          order by subject_id
          limit ${limit}
        ), bumped as (
          update memories m set checked_at = ${now.toISOString()}::timestamptz
          from page p
          where m.subject_id = p.subject_id
            and (p.material_changed_at is null
                 or (p.current_version_id is not null and p.material_changed_at <= p.generated_at))
          returning m.subject_id
        )
        select count(*)::int as checked, count(b.subject_id)::int as skipped,
               max(p.subject_id) as last_key,
               coalesce(json_agg(p.subject_id order by p.subject_id) filter (where b.subject_id is null), '[]'::json) as to_dispatch
        from page p left join bumped b on b.subject_id = p.subject_id`);
      const r = result.rows[0] ?? {};
      return {
        checked: Number(r.checked ?? 0),
        skipped: Number(r.skipped ?? 0),
        lastKey: typeof r.last_key === "string" ? r.last_key : null,
        toDispatch: parseStringArray(r.to_dispatch),
      };
    },
  };
}
