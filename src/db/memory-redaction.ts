/** Redaction writes for deleted items: find the citing versions, rewrite them optimistically, repair conflicts. */
import { type SQL, sql } from "drizzle-orm";
import type { Statement } from "../domain/memory";
import type { RedactedVersion } from "../memory/erasure-store";
import { type CitingVersion, redactVersion } from "../memory/redaction";
import type { Db } from "./client";
import { parseJson } from "./sql-values";

/** Concurrent redactions of one version are retried this many times (optimistic check on redacted_at). */
const REDACTION_ATTEMPTS = 4;

interface CitingRow {
  version: CitingVersion;
  /** redacted_at as Postgres printed it (optimistic check), or null. */
  redactedAt: string | null;
  /** Ids to remove from this version: the deleted item(s) plus any cited item that no longer exists. */
  removable: string[];
}

export const redactAll = (citing: CitingRow[]) =>
  citing.map((c) => redactVersion(c.version, new Set(c.removable)));

/** Versions matching `where` (alias v) as JSON: statements, redacted_at, and the ids `removable` says to drop. */
export function citingVersionsJson(where: SQL, removable: SQL) {
  return sql`coalesce((
    select json_agg(json_build_object(
      'id', v.id, 'subjectId', v.subject_id, 'statements', v.statements, 'redactedAt', v.redacted_at::text,
      'removable', array(select c::text from unnest(v.cited_item_ids) c where ${removable})))
    from memory_versions v where ${where}
  ), '[]'::json)`;
}

/** A cited id (alias c) whose item no longer exists. */
export const goneItem = sql`not exists (select 1 from items x where x.id = c)`;

export function parseCiting(value: unknown): CitingRow[] {
  const list = parseJson(value);
  if (!Array.isArray(list)) return [];
  return list.map(
    (v: {
      id: string;
      subjectId: string;
      statements: Statement[];
      redactedAt: string | null;
      removable: string[];
    }) => ({
      version: { id: v.id, subjectId: v.subjectId, statements: v.statements },
      redactedAt: v.redactedAt,
      removable: v.removable ?? [],
    }),
  );
}

interface RedactionRow {
  id: string;
  markdown: string;
  statements: Statement[];
  cited: string[];
  prev: string | null;
}

export function redactionPayload(redacted: RedactedVersion[], citing: CitingRow[]): RedactionRow[] {
  const prev = new Map(citing.map((c) => [c.version.id, c.redactedAt]));
  return redacted.map((r) => ({
    id: r.id,
    markdown: r.markdown,
    statements: r.statements,
    cited: r.citedItemIds,
    prev: prev.get(r.id) ?? null,
  }));
}

/** Rewrites the versions, each only if nobody redacted it since we read it (redacted_at unchanged). */
export function applyRedactions(db: Db, payload: RedactionRow[], at: Date) {
  return db.execute(sql`
    update memory_versions v set
      markdown = r.markdown, statements = r.statements, redacted_at = ${at.toISOString()}::timestamptz,
      cited_item_ids = array(select e::uuid from jsonb_array_elements_text(r.cited) with ordinality t(e, n) order by n)
    from jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) as r(id uuid, markdown text, statements jsonb, cited jsonb, prev text)
    where v.id = r.id and v.redacted_at is not distinct from r.prev::timestamptz
    returning v.id`);
}

/** The memories row carries the current markdown: keep it equal to its (redacted) version's. */
export function syncCurrentMarkdown(db: Db, payload: RedactionRow[], at: Date) {
  return db.execute(sql`
    update memories m set markdown = v.markdown, updated_at = ${at.toISOString()}::timestamptz
    from memory_versions v
    where v.id = m.current_version_id
      and v.id in (select (x->>'id')::uuid from jsonb_array_elements(${JSON.stringify(payload)}::jsonb) x)`);
}

export function missedIds(payload: RedactionRow[], updatedRows: Record<string, unknown>[]): string[] {
  const updated = new Set(updatedRows.map((r) => String(r.id)));
  return payload.map((p) => p.id).filter((id) => !updated.has(id));
}

/**
 * A version redacted concurrently by another deletion lost our optimistic check: re-read it and remove
 * every citation of an item that no longer exists (ours is gone by now), a bounded number of times.
 */
export async function repairMissed(db: Db, versionIds: string[], at: Date): Promise<void> {
  let pending = versionIds;
  for (let attempt = 0; attempt < REDACTION_ATTEMPTS && pending.length > 0; attempt++) {
    const found = await db.execute(sql`
      select ${citingVersionsJson(
        sql`v.id in (select x::uuid from jsonb_array_elements_text(${JSON.stringify(pending)}::jsonb) x)`,
        goneItem,
      )} as versions`);
    const citing = parseCiting(found.rows[0]?.versions);
    const redacted = redactAll(citing);
    const payload = redactionPayload(redacted, citing);
    const [updated] = await db.batch([
      applyRedactions(db, payload, at),
      syncCurrentMarkdown(db, payload, at),
    ]);
    pending = missedIds(payload, updated.rows);
  }
  if (pending.length > 0) {
    throw new Error(`redaction of ${pending.length} memory version(s) kept conflicting; retry the deletion`);
  }
}
