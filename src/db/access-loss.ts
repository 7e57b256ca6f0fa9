/**
 * The invariant, as one mechanism: whenever a write takes access to items away from subjects, every memory
 * version of theirs (current and old, personal or team) that cites an item they will no longer see is
 * redacted in the same atomic batch as the write.
 *
 * Every access-losing path (an item deleted, re-shared to fewer targets, a sharee leaving it, a member
 * leaving or removed from a team, a team deleted, a member removed from the workspace, a subject erased)
 * describes its write as an AccessChange. Before the batch, one read finds the candidate versions and,
 * per version, the cited items the subject cannot see once the change is applied (the access rule of
 * item-rows.ts, evaluated on the state after the change). The batch then runs the write, the rewritten
 * versions and the current markdown together. A version rewritten concurrently by another redaction fails
 * the optimistic check (redacted_at) and is re-checked against the state after both. The subject's
 * dismissals citing such an item go in the same batch (their text came from it), and every redacted
 * statement is logged in its version's `removed` (id and section only). So do the words of the subject's
 * runs ledger that could have come from the item (forgetRunWords): the ledger keeps counts and ids. A
 * `memory.redacted` webhook event per redacted subject is recorded in the same batch (ids and counts only).
 */
import { type SQL, sql } from "drizzle-orm";
import type { RemovedStatement, Statement } from "../domain/memory";
import { type WebhookEvent, webhookPayload } from "../domain/webhook-events";
import { localName, workspaceOf } from "../domain/workspaces";
import type { RedactedVersion } from "../memory/erasure-store";
import { redactVersion } from "../memory/redaction";
import { type Db, statementDeadline } from "./client";
import { principalsOf } from "./item-rows";
import { recordWebhookEvents } from "./pg-webhook-outbox";
import { parseJson, uuidArray } from "./sql-values";

/** Concurrent redactions of one version are retried this many times. */
const REDACTION_ATTEMPTS = 4;

/** What the write is about to take away (keys as in domain/workspaces.ts). */
export interface AccessChange {
  /** Items that will no longer exist. */
  deletedItems?: string[];
  /** Every item of this owner will no longer exist (an erase). */
  erasedOwner?: string;
  /** Items whose shared_with becomes exactly these keys. */
  sharedWith?: { id: string; keys: string[] }[];
  /** Team memberships that end. */
  leftTeams?: { team: string; member: string }[];
  /** Keys that stop granting anything anywhere: a deleted team, a member removed from the workspace. */
  removedPrincipals?: string[];
}

/** Which versions to re-check: those of these subjects, and/or those citing these items (or this owner's). */
export interface Candidates {
  subjects?: string[];
  items?: string[];
  itemsOfOwner?: string;
}

type BatchItem = Parameters<Db["batch"]>[0][number];

export interface RedactingWrite {
  /** The write's own results, in order. */
  results: unknown[];
  /** Subjects whose memory versions were redacted. */
  redactedSubjects: string[];
}

/** Runs `writes` and the redactions they cause as one db.batch (one transaction). */
export async function writeWithRedaction(
  db: Db,
  change: AccessChange,
  candidates: Candidates,
  writes: BatchItem[],
  at: Date,
): Promise<RedactingWrite> {
  const citing = hasCandidates(candidates)
    ? await readCiting(db, candidatesWhere(candidates), lostAfter(change))
    : [];
  const redacted = citing.map((c) => redactVersion(c.version, new Set(c.lost)));
  const payload = payloadOf(redacted, citing, at);
  const dismissals = hasCandidates(candidates)
    ? [
        forgetDismissals(db, candidatesWhere(candidates), lostAfter(change)),
        forgetRunWords(db, candidates, lostAfter(change)),
      ]
    : [];
  // The worker's deadline first: a write it gave up on (a 503) is stopped by the database too, instead of
  // committing later (behind a lock, say) for the client's retry to find "unchanged".
  const lead = [db.execute(statementDeadline()), ...dismissals];
  const events = redactionEvents(citing, at);
  const batch = [
    ...lead,
    ...writes,
    applyRedactions(db, payload, at),
    syncCurrentMarkdown(db, payload, at),
    ...(events.length > 0 ? [db.execute(recordWebhookEvents(events, at))] : []),
  ];
  const results = (await db.batch(batch as [BatchItem, ...BatchItem[]])).slice(lead.length);
  const updated = results[writes.length] as { rows: Record<string, unknown>[] };
  await repairMissed(db, missedIds(payload, updated.rows), at);
  return {
    results: results.slice(0, writes.length),
    redactedSubjects: [...new Set(redacted.map((r) => r.subjectKey))],
  };
}

const hasCandidates = ({ subjects, items, itemsOfOwner }: Candidates): boolean =>
  (subjects?.length ?? 0) > 0 || (items?.length ?? 0) > 0 || itemsOfOwner !== undefined;

function candidatesWhere({ subjects, items, itemsOfOwner }: Candidates): SQL {
  const parts: SQL[] = [];
  if (subjects) parts.push(sql`v.subject_id = any(${sql.param(subjects)}::text[])`);
  if (items) parts.push(sql`v.cited_item_ids && ${uuidArray(items)}`);
  if (itemsOfOwner) {
    parts.push(
      sql`v.subject_id <> ${itemsOfOwner} and v.cited_item_ids && array(select id from items where owner_id = ${itemsOfOwner})`,
    );
  }
  if (parts.length === 0) throw new Error("writeWithRedaction needs candidates");
  return sql.join(parts, sql` and `);
}

/**
 * A cited id (alias c) of a version (alias v) that v's subject cannot see once `change` is applied:
 * the access rule (owner, or shared_with overlapping the subject's principals) on the state after it.
 */
function lostAfter(change: AccessChange): SQL {
  const removed = sql.param(change.removedPrincipals ?? []);
  const left = JSON.stringify(change.leftTeams ?? []);
  const sharedWith = JSON.stringify(change.sharedWith ?? []);
  const principals = sql`array(
    select p from unnest(array[v.subject_id] || array(
      select tm.team_key from team_members tm
      where tm.member_key = v.subject_id
        and not exists (select 1 from jsonb_to_recordset(${left}::jsonb) as l(team text, member text)
                        where l.team = tm.team_key and l.member = tm.member_key))) p
    where p <> all(${removed}::text[]))`;
  const sharedAfter = sql`coalesce(
    (select array(select jsonb_array_elements_text(o.keys)) from jsonb_to_recordset(${sharedWith}::jsonb) as o(id uuid, keys jsonb) where o.id = x.id),
    x.shared_with)`;
  const gone: SQL[] = [];
  if (change.deletedItems?.length) gone.push(sql`and x.id <> all(${uuidArray(change.deletedItems)})`);
  if (change.erasedOwner) gone.push(sql`and x.owner_id <> ${change.erasedOwner}`);
  return sql`not exists (
    select 1 from items x where x.id = c ${sql.join(gone, sql` `)}
      and (x.owner_id = v.subject_id or ${sharedAfter} && ${principals}))`;
}

// ---- reading, rewriting and repairing versions --------------------------------------------------------------

/**
 * One `memory.redacted` event per subject whose versions lose statements: how many versions, and the version
 * now current (its ETag changes with the redaction), else the newest one redacted.
 */
function redactionEvents(citing: CitingRow[], at: Date): WebhookEvent[] {
  const bySubject = new Map<string, CitingRow[]>();
  for (const row of citing)
    bySubject.set(row.version.subjectKey, [...(bySubject.get(row.version.subjectKey) ?? []), row]);
  return [...bySubject].map(([subjectKey, rows]) => ({
    id: crypto.randomUUID(),
    payload: webhookPayload("memory.redacted", workspaceOf(subjectKey), at, {
      subject: localName(subjectKey),
      version: rows[0]?.current ?? rows[0]?.version.id ?? "",
      versionsRedacted: rows.length,
    }),
  }));
}

interface CitingRow {
  version: { id: string; subjectKey: string; statements: Statement[] };
  /** The subject's current version id, if it has one. */
  current: string | null;
  /** redacted_at as Postgres printed it (optimistic check), or null. */
  redactedAt: string | null;
  /** Cited ids the subject can no longer see. */
  lost: string[];
}

async function readCiting(db: Db, where: SQL, lost: SQL): Promise<CitingRow[]> {
  const found = await db.execute(sql`
    select coalesce(json_agg(json_build_object(
      'id', v.id, 'subjectKey', v.subject_id, 'statements', v.statements, 'redactedAt', v.redacted_at::text,
      'lost', lost.ids, 'current', (select m.current_version_id::text from memories m where m.subject_id = v.subject_id)
    ) order by v.created_at desc), '[]'::json) as versions
    from memory_versions v,
      lateral (select array(select c::text from unnest(v.cited_item_ids) c where ${lost}) as ids) lost
    where ${where} and cardinality(lost.ids) > 0`);
  const list = parseJson(found.rows[0]?.versions);
  if (!Array.isArray(list)) return [];
  return list.map(
    (v: {
      id: string;
      subjectKey: string;
      statements: Statement[];
      redactedAt: string | null;
      lost: string[];
      current: string | null;
    }) => ({
      version: { id: v.id, subjectKey: v.subjectKey, statements: v.statements },
      current: v.current ?? null,
      redactedAt: v.redactedAt,
      lost: v.lost ?? [],
    }),
  );
}

interface RedactionRow {
  id: string;
  markdown: string;
  statements: Statement[];
  cited: string[];
  prev: string | null;
  removed: RemovedStatement[];
}

function payloadOf(redacted: RedactedVersion[], citing: CitingRow[], at: Date): RedactionRow[] {
  const before = new Map(citing.map((c) => [c.version.id, c]));
  return redacted.map((r) => {
    const kept = new Set(r.statements);
    const removed = (before.get(r.id)?.version.statements ?? [])
      .filter((s) => !kept.has(s))
      .map(
        (s, i): RemovedStatement => ({
          id: s.id ?? `${r.id}:redacted-${i}`,
          section: s.section,
          reason: "redacted",
          at: at.toISOString(),
        }),
      );
    return {
      id: r.id,
      markdown: r.markdown,
      statements: r.statements,
      cited: r.citedItemIds,
      prev: before.get(r.id)?.redactedAt ?? null,
      removed,
    };
  });
}

/** Rewrites the versions, each only if nobody redacted it since we read it (redacted_at unchanged). */
function applyRedactions(db: Db, payload: RedactionRow[], at: Date) {
  return db.execute(sql`
    update memory_versions v set
      markdown = r.markdown, statements = r.statements, redacted_at = ${at.toISOString()}::timestamptz,
      cited_item_ids = array(select e::uuid from jsonb_array_elements_text(r.cited) with ordinality t(e, n) order by n),
      removed = v.removed || r.removed
    from jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) as r(id uuid, markdown text, statements jsonb, cited jsonb, prev text, removed jsonb)
    where v.id = r.id and v.redacted_at is not distinct from r.prev::timestamptz
    returning v.id`);
}

/**
 * The dismissals (alias v, as the versions) of the candidate subjects that cite an item their subject will
 * no longer see: deleted, evaluated on the state before the batch's writes, as readCiting evaluates them.
 */
function forgetDismissals(db: Db, where: SQL, lost: SQL) {
  return db.execute(sql`
    delete from memory_dismissals v
    where ${where} and exists (select 1 from unnest(v.cited_item_ids) c where ${lost})`);
}

/** What a run's ledger row keeps of a text it recorded once the subject lost an item it could have read. */
const REDACTED = "(redacted)";

/**
 * The words the runs ledger recorded (superseded and salvaged statements and why, the judge's reason, an
 * error message) of every candidate subject's run that could have read an item the subject is losing: the
 * run ended after the item was ingested, and the subject could see it. A dropped statement's citations are
 * not recorded, so this is by reading, not by citation: counts, ids, sections and causes stay. The judge's
 * reason the run's version carries goes with it. Evaluated on the state before the batch's writes.
 */
function forgetRunWords(db: Db, { subjects, items, itemsOfOwner }: Candidates, lost: SQL) {
  const runs: SQL[] = [sql`true`];
  const read: SQL[] = [sql`true`];
  if (subjects) runs.push(sql`v.subject_id = any(${sql.param(subjects)}::text[])`);
  if (items) read.push(sql`y.id = any(${uuidArray(items)})`);
  if (itemsOfOwner) {
    runs.push(sql`v.subject_id <> ${itemsOfOwner}`);
    read.push(sql`y.owner_id = ${itemsOfOwner}`);
  }
  const redacted = sql`${JSON.stringify(REDACTED)}::jsonb`;
  const words = sql`${JSON.stringify({ text: REDACTED, reason: REDACTED })}::jsonb`;
  return db.execute(sql`
    with forgotten as (
      update memory_runs v set
        verdict = case when v.verdict ? 'reason' then jsonb_set(v.verdict, '{reason}', ${redacted}) else v.verdict end,
        error_message = case when v.error_message is null then null else ${REDACTED} end,
        salvaged = case when jsonb_typeof(v.salvaged->'statements') = 'array' then jsonb_set(v.salvaged, '{statements}',
          coalesce((select jsonb_agg(e || ${words}) from jsonb_array_elements(v.salvaged->'statements') e), '[]'::jsonb))
          else v.salvaged end,
        superseded = case when jsonb_typeof(v.superseded) = 'array' then
          coalesce((select jsonb_agg(e || jsonb_build_object('text', ${REDACTED}::text)) from jsonb_array_elements(v.superseded) e), '[]'::jsonb)
          else v.superseded end
      where ${sql.join(runs, sql` and `)}
        and (v.verdict ? 'reason' or v.error_message is not null or v.salvaged is not null or v.superseded is not null)
        and exists (
          select 1 from items y cross join lateral (select y.id) as l(c)
          where ${sql.join(read, sql` and `)}
            and coalesce(v.finished_at, 'infinity'::timestamptz) >= y.created_at
            and (y.owner_id = v.subject_id or y.shared_with && ${principalsOf(sql`v.subject_id`)})
            and ${lost})
      returning v.id, v.subject_id),
    versions as (
      update memory_versions x set verdict = jsonb_set(x.verdict, '{reason}', ${redacted})
      where x.run_id in (select id from forgotten) and x.verdict ? 'reason'
      returning x.id)
    -- The memories row repeats its last run's error message (what GET /memory's 503 says): the same words.
    update memories m set error_message = ${REDACTED}
    where m.error_message is not null and m.subject_id in (select subject_id from forgotten)`);
}

/** The memories row carries the current markdown: keep it equal to its (redacted) version's. */
function syncCurrentMarkdown(db: Db, payload: RedactionRow[], at: Date) {
  return db.execute(sql`
    update memories m set markdown = v.markdown, updated_at = ${at.toISOString()}::timestamptz
    from memory_versions v
    where v.id = m.current_version_id
      and v.id in (select (x->>'id')::uuid from jsonb_array_elements(${JSON.stringify(payload)}::jsonb) x)`);
}

function missedIds(payload: RedactionRow[], updatedRows: Record<string, unknown>[]): string[] {
  const updated = new Set(updatedRows.map((r) => String(r.id)));
  return payload.map((p) => p.id).filter((id) => !updated.has(id));
}

/**
 * Versions another redaction rewrote between our read and our batch: re-check them against the state now
 * (our write has landed), a bounded number of times.
 */
async function repairMissed(db: Db, versionIds: string[], at: Date): Promise<void> {
  let pending = versionIds;
  for (let attempt = 0; attempt < REDACTION_ATTEMPTS && pending.length > 0; attempt++) {
    const citing = await readCiting(db, sql`v.id = any(${uuidArray(pending)})`, lostAfter({}));
    const redacted = citing.map((c) => redactVersion(c.version, new Set(c.lost)));
    const payload = payloadOf(redacted, citing, at);
    const [updated] = await db.batch([
      applyRedactions(db, payload, at),
      syncCurrentMarkdown(db, payload, at),
    ]);
    pending = missedIds(payload, updated.rows);
  }
  if (pending.length > 0) {
    throw new Error(`redaction of ${pending.length} memory version(s) kept conflicting; retry the change`);
  }
}
