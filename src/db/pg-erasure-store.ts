/** ErasureStore over Postgres: a deletion and the redactions it causes are one atomic db.batch. */
import { sql } from "drizzle-orm";
import type { ErasureStore } from "../memory/erasure-store";
import type { Db } from "./client";
import {
  applyRedactions,
  citingVersionsJson,
  goneItem,
  missedIds,
  parseCiting,
  redactAll,
  redactionPayload,
  repairMissed,
  syncCurrentMarkdown,
} from "./memory-redaction";
import { parseStringArray, parseTextArray } from "./sql-values";

export function createPgErasureStore(db: Db): ErasureStore {
  return {
    async deleteItem(ownerId, itemId, at) {
      const found = await db.execute(sql`
        select i.shared_with::text as shared_with, ${citingVersionsJson(sql`v.cited_item_ids @> array[i.id]`, sql`c = i.id or ${goneItem}`)} as versions
        from items i where i.id = ${itemId}::uuid and i.owner_id = ${ownerId}`);
      const row = found.rows[0];
      if (!row) return null;
      const citing = parseCiting(row.versions);
      const redacted = redactAll(citing);
      const payload = redactionPayload(redacted, citing);
      const [deleted, updated] = await db.batch([
        db.execute(sql`delete from items where id = ${itemId}::uuid and owner_id = ${ownerId} returning id`),
        applyRedactions(db, payload, at),
        syncCurrentMarkdown(db, payload, at),
      ]);
      if (deleted.rows.length === 0) return null;
      await repairMissed(db, missedIds(payload, updated.rows), at);
      const visibleTo = [ownerId, ...parseTextArray(row.shared_with)];
      return { visibleTo: unique(visibleTo), redactedSubjects: unique(redacted.map((r) => r.subjectId)) };
    },

    async eraseSubject(subjectId, at) {
      const found = await db.execute(sql`
        select
          (select coalesce(json_agg(distinct s), '[]'::json) from items i, unnest(i.shared_with) s where i.owner_id = ${subjectId}) as shared_with,
          ${citingVersionsJson(
            sql`v.subject_id <> ${subjectId} and v.cited_item_ids && array(select id from items where owner_id = ${subjectId})`,
            sql`not exists (select 1 from items x where x.id = c and x.owner_id <> ${subjectId})`,
          )} as versions`);
      const row = found.rows[0];
      const citing = parseCiting(row?.versions);
      const redacted = redactAll(citing);
      const payload = redactionPayload(redacted, citing);
      const results = await db.batch([
        db.execute(sql`delete from items where owner_id = ${subjectId}`),
        db.execute(sql`delete from memory_versions where subject_id = ${subjectId}`),
        db.execute(sql`delete from memory_runs where subject_id = ${subjectId}`),
        db.execute(sql`delete from memories where subject_id = ${subjectId}`),
        applyRedactions(db, payload, at),
        syncCurrentMarkdown(db, payload, at),
        // Their private inbound-email address goes too: mail sent to it afterwards is refused.
        db.execute(sql`delete from ingest_addresses where owner_id = ${subjectId}`),
      ]);
      await repairMissed(db, missedIds(payload, results[4].rows), at);
      const visibleTo = parseStringArray(row?.shared_with).filter((s) => s !== subjectId);
      return { visibleTo: unique(visibleTo), redactedSubjects: unique(redacted.map((r) => r.subjectId)) };
    },
  };
}

const unique = (ids: string[]): string[] => [...new Set(ids)];
