/**
 * ErasureStore over Postgres: each deletion and the redactions it causes are one atomic db.batch, with the
 * webhook events they announce.
 */
import { sql } from "drizzle-orm";
import { erasedName } from "../domain/audit";
import { webhookPayload } from "../domain/webhook-events";
import { localName, qualify, workspaceOf } from "../domain/workspaces";
import type { ErasureStore } from "../memory/erasure-store";
import { writeWithRedaction } from "./access-loss";
import type { Db } from "./client";
import { principalsOf } from "./item-rows";
import { addUsageOnConflict } from "./pg-run-ledger";
import { recordWebhookEvents } from "./pg-webhook-outbox";
import { parseStringArray, parseTextArray } from "./sql-values";

export function createPgErasureStore(db: Db): ErasureStore {
  return {
    async removeItem(subjectKey, itemId, at) {
      const found = await db.execute(sql`
        select i.owner_id, i.shared_with::text as shared_with,
          i.owner_id = ${subjectKey} or i.shared_with && ${principalsOf(sql`${subjectKey}::text`)} as visible
        from items i where i.id = ${itemId}::uuid`);
      const row = found.rows[0];
      if (!row || !isTrue(row.visible)) return { outcome: "not_found" };
      const sharedWith = parseTextArray(row.shared_with);
      const visibleTo = unique([String(row.owner_id), ...sharedWith]);

      if (row.owner_id === subjectKey) {
        const { results, redactedSubjects } = await writeWithRedaction(
          db,
          { deletedItems: [itemId] },
          { items: [itemId] },
          [
            db.execute(
              sql`delete from items where id = ${itemId}::uuid and owner_id = ${subjectKey} returning id`,
            ),
          ],
          at,
        );
        if ((results[0] as { rows: unknown[] }).rows.length === 0) return { outcome: "not_found" };
        return { outcome: "deleted", removal: { visibleTo, redactedSubjects } };
      }
      if (!sharedWith.includes(subjectKey)) return { outcome: "via_team" };
      const after = sharedWith.filter((key) => key !== subjectKey);
      const { redactedSubjects } = await writeWithRedaction(
        db,
        { sharedWith: [{ id: itemId, keys: after }] },
        { items: [itemId] },
        [
          db.execute(sql`
            update items set shared_with = array_remove(shared_with, ${subjectKey}), updated_at = now()
            where id = ${itemId}::uuid`),
        ],
        at,
      );
      return { outcome: "left", removal: { visibleTo, redactedSubjects } };
    },

    async eraseSubject(subjectKey, at) {
      const found = await db.execute(sql`
        select
          (select coalesce(json_agg(distinct s), '[]'::json)
           from items i, unnest(i.shared_with) s where i.owner_id = ${subjectKey}) as shared_with,
          array(select team_key from team_members where member_key = ${subjectKey})::text as teams`);
      const sharees = parseStringArray(found.rows[0]?.shared_with);
      const workspace = workspaceOf(subjectKey);
      const pseudonym = qualify(workspace, await erasedName(workspace, localName(subjectKey)));
      const teams = parseTextArray(found.rows[0]?.teams);
      // The workspace's webhooks learn of the erase by the one-way name only, in the erase's own transaction.
      const erased = webhookPayload("subject.erased", workspace, at, { subject: localName(pseudonym) });
      // The erased user also leaves the workspace: their membership, their teams and every share naming
      // them go, redacted like any membership change (their own memory goes with the rest).
      const { redactedSubjects } = await writeWithRedaction(
        db,
        {
          erasedOwner: subjectKey,
          removedPrincipals: [subjectKey],
          leftTeams: teams.map((team) => ({ team, member: subjectKey })),
        },
        { itemsOfOwner: subjectKey },
        [
          db.execute(sql`delete from items where owner_id = ${subjectKey}`),
          db.execute(sql`delete from memory_versions where subject_id = ${subjectKey}`),
          db.execute(sql`delete from memory_runs where subject_id = ${subjectKey}`),
          db.execute(sql`delete from memories where subject_id = ${subjectKey}`),
          // The usage ledger keeps the workspace's spend under the one-way name the audit trail gives the
          // erased user: nothing of it stays under their id, so one who joins again starts from nothing.
          db.execute(sql`
            with moved as (delete from usage_daily where subject_id = ${subjectKey} returning *)
            insert into usage_daily (subject_id, day, model, runs, succeeded, rejected, failed, budget_exhausted,
                                     llm_calls, input_tokens, output_tokens)
            select ${pseudonym}, day, model, runs, succeeded, rejected, failed, budget_exhausted, llm_calls,
                   input_tokens, output_tokens from moved
            ${addUsageOnConflict}`),
          // Their people corrections, and the address an admin tied them to (with the membership below).
          db.execute(sql`delete from person_corrections where author_key = ${subjectKey}`),
          // Dismissals are the subject's data too.
          db.execute(sql`delete from memory_dismissals where subject_id = ${subjectKey}`),
          // Their imports and the files waiting in them; a run still going finds its import gone and stops.
          db.execute(sql`delete from imports where owner_key = ${subjectKey}`),
          // Their private inbound-email address goes too: mail sent to it afterwards is refused.
          db.execute(sql`delete from ingest_addresses where owner_id = ${subjectKey}`),
          // And the sign-in codes they made (a code not yet used holds their token, sealed).
          db.execute(sql`delete from sign_in_codes where owner_id = ${subjectKey}`),
          db.execute(sql`
            update items set shared_with = array_remove(shared_with, ${subjectKey}), updated_at = now()
            where shared_with @> array[${subjectKey}::text]`),
          db.execute(sql`delete from team_members where member_key = ${subjectKey}`),
          db.execute(sql`delete from workspace_members where member_key = ${subjectKey}`),
          db.execute(recordWebhookEvents([{ id: crypto.randomUUID(), payload: erased }], at)),
        ],
        at,
      );
      return { visibleTo: sharees.filter((s) => s !== subjectKey), redactedSubjects };
    },
  };
}

const unique = (ids: string[]): string[] => [...new Set(ids)];
const isTrue = (v: unknown): boolean => v === true || v === "t" || v === "true";
