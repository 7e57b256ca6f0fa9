/**
 * Dismissals over Postgres. A dismissal rewrites the subject's current version without the statement (as a
 * redaction does: markdown re-rendered, redacted_at set, so the ETag changes; the statement is logged in
 * `removed`) and records the dismissal, in one atomic batch that first locks the memories row, as a run's
 * accepted version does (pg-run-ledger.ts): a run that read the dismissals before this one committed has
 * its version refused, so the dismissed statement cannot come back through it. The `memory.updated` webhook
 * event (reason `dismissal`) commits with it.
 */
import { sql } from "drizzle-orm";
import type { RemovedStatement, Statement } from "../domain/memory";
import { renderMemory } from "../domain/memory-render";
import { statementChanges, webhookPayload } from "../domain/webhook-events";
import { localName, workspaceOf } from "../domain/workspaces";
import type { DismissalStore, DismissOutcome } from "../memory/dismissal-store";
import type { Db } from "./client";
import { readDismissals } from "./dismissal-rows";
import { recordWebhookEvents } from "./pg-webhook-outbox";
import { parseJson, uuidArray } from "./sql-values";

/** A dismissal racing a run or a redaction of the same version is tried again this many times. */
const DISMISS_ATTEMPTS = 3;

export function createPgDismissalStore(db: Db): DismissalStore {
  return {
    async list(subjectKey) {
      return (await readDismissals(db, subjectKey, { citations: true })).map(({ seq: _seq, ...d }) => d);
    },

    async dismiss(subjectKey, statementId, reason, at) {
      for (let attempt = 0; attempt < DISMISS_ATTEMPTS; attempt++) {
        const outcome = await tryDismiss(db, subjectKey, statementId, reason, at);
        if (outcome !== "conflict") return outcome;
      }
      throw new Error("the memory kept changing while the statement was dismissed; retry");
    },

    async withdraw(subjectKey, dismissalId) {
      const found = await db.execute(sql`
        delete from memory_dismissals where subject_id = ${subjectKey} and id = ${dismissalId}::uuid returning id`);
      return found.rows.length > 0;
    },
  };
}

async function tryDismiss(
  db: Db,
  subjectKey: string,
  statementId: string,
  reason: string | null,
  at: Date,
): Promise<DismissOutcome | "conflict"> {
  const found = await db.execute(sql`
    select v.id, v.statements, v.redacted_at::text as redacted_at
    from memories m join memory_versions v on v.id = m.current_version_id
    where m.subject_id = ${subjectKey}`);
  const row = found.rows[0];
  if (!row) return { kind: "not_found" };
  const versionId = String(row.id);
  const statements = (parseJson(row.statements) as Statement[] | null) ?? [];
  const statement = statements.find((s) => s.id === statementId);
  if (!statement) return { kind: "not_found" };

  const kept = statements.filter((s) => s !== statement);
  const { markdown, citedIds } = renderMemory(kept);
  const removed: RemovedStatement = {
    id: statementId,
    section: statement.section,
    reason: "dismissed",
    at: at.toISOString(),
  };
  const dismissalId = crypto.randomUUID();
  const stamp = at.toISOString();
  // The current version changed in place (same id, new ETag): announced as such, committed with the dismissal.
  const updated = webhookPayload("memory.updated", workspaceOf(subjectKey), at, {
    subject: localName(subjectKey),
    version: versionId,
    previousVersion: versionId,
    reason: "dismissal",
    statements: statementChanges(statements, kept),
  });
  const [, dismissed] = await db.batch([
    db.execute(sql`select 1 from memories where subject_id = ${subjectKey} for update`),
    db.execute(sql`
      with rewritten as (
        update memory_versions v set statements = ${JSON.stringify(kept)}::jsonb, markdown = ${markdown},
               cited_item_ids = ${uuidArray(citedIds)}, redacted_at = ${stamp}::timestamptz,
               removed = v.removed || ${JSON.stringify([removed])}::jsonb
        where v.id = ${versionId}::uuid and v.subject_id = ${subjectKey}
          and v.redacted_at is not distinct from ${row.redacted_at === null ? null : String(row.redacted_at)}::timestamptz
          and v.id = (select current_version_id from memories where subject_id = ${subjectKey})
        returning v.id)
      insert into memory_dismissals (id, subject_id, statement_id, section, text, cited_item_ids, reason, version_id, created_at)
      select ${dismissalId}::uuid, ${subjectKey}, ${statementId}, ${statement.section}, ${statement.text},
             ${uuidArray([...new Set(statement.itemIds)])}, ${reason}, ${versionId}::uuid, ${stamp}::timestamptz
      from rewritten
      returning id`),
    db.execute(sql`
      update memories set markdown = ${markdown}, updated_at = ${stamp}::timestamptz
      where subject_id = ${subjectKey} and current_version_id = ${versionId}::uuid
        and exists (select 1 from memory_dismissals where id = ${dismissalId}::uuid)`),
    db.execute(
      recordWebhookEvents(
        [{ id: crypto.randomUUID(), payload: updated }],
        at,
        sql`exists (select 1 from memory_dismissals where id = ${dismissalId}::uuid)`,
      ),
    ),
  ]);
  if (dismissed.rows.length === 0) return "conflict";
  const [view] = (await readDismissals(db, subjectKey, { citations: true })).filter(
    (d) => d.id === dismissalId,
  );
  if (!view) throw new Error("a dismissal vanished right after it was written");
  const { seq: _seq, ...dismissal } = view;
  return { kind: "dismissed", dismissal, versionId };
}
