/** MemoryStore over Postgres (drizzle, Neon HTTP mode): every multi-statement write is one atomic db.batch. */
import { and, desc, eq, lt, or, type SQL, sql } from "drizzle-orm";
import { AppError } from "../domain/errors";
import type { RunStats } from "../domain/generation";
import type { ItemKind } from "../domain/items";
import type { Statement } from "../domain/memory";
import type {
  AcceptResult,
  Citation,
  CurrentMemory,
  MemoryStatus,
  MemoryStore,
  Page,
  RedactedVersion,
  RunEnd,
  RunRecord,
  VersionDetail,
  VersionSummary,
} from "../memory/memory-store";
import { type CitingVersion, redactVersion } from "../memory/redaction";
import type { Db } from "./client";
import { memories, memoryRuns, memoryVersions } from "./schema";

/** Concurrent redactions of one version are retried this many times (optimistic check on redacted_at). */
const REDACTION_ATTEMPTS = 4;

export function createMemoryStore(db: Db): MemoryStore {
  return {
    async current(subjectId) {
      const rows = await db
        .select({
          status: memories.status,
          errorCode: memories.errorCode,
          checkedAt: memories.checkedAt,
          generatedAt: memories.generatedAt,
          markdown: memories.markdown,
          versionId: memoryVersions.id,
          statements: memoryVersions.statements,
          redactedAt: memoryVersions.redactedAt,
          citations: citationsOf(memoryVersions.citedItemIds, memories.subjectId),
        })
        .from(memories)
        .leftJoin(memoryVersions, eq(memoryVersions.id, memories.currentVersionId))
        .where(eq(memories.subjectId, subjectId));
      const row = rows[0];
      if (!row) return null;
      const version =
        row.versionId && row.statements && row.generatedAt
          ? {
              id: row.versionId,
              markdown: row.markdown ?? "",
              statements: row.statements,
              generatedAt: row.generatedAt,
              redactedAt: row.redactedAt,
              citations: parseCitations(row.citations),
            }
          : null;
      return {
        subjectId,
        status: row.status as MemoryStatus,
        errorCode: row.errorCode,
        checkedAt: row.checkedAt,
        version,
      } satisfies CurrentMemory;
    },

    async materialChangedSinceMemory(subjectId) {
      const rows = await db
        .select({
          versionId: memories.currentVersionId,
          generatedAt: memories.generatedAt,
          materialChangedAt: memories.materialChangedAt,
        })
        .from(memories)
        .where(eq(memories.subjectId, subjectId));
      const row = rows[0];
      if (!row?.versionId || !row.generatedAt) return null;
      return row.materialChangedAt !== null && row.materialChangedAt > row.generatedAt;
    },

    async confirmUnchanged(subjectId, at) {
      await db.update(memories).set({ checkedAt: at }).where(eq(memories.subjectId, subjectId));
    },

    async runStarted(run) {
      await db.batch([
        db.insert(memoryRuns).values({
          id: run.id,
          subjectId: run.subjectId,
          trigger: run.trigger,
          status: "running",
          attempt: run.attempt,
          queuedAt: run.queuedAt,
          startedAt: run.startedAt,
        }),
        db
          .insert(memories)
          .values({ subjectId: run.subjectId, status: "generating", updatedAt: run.startedAt })
          .onConflictDoUpdate({
            target: memories.subjectId,
            set: { status: "generating", updatedAt: run.startedAt },
          }),
      ]);
    },

    async runAccepted(run, memory, stats, finishedAt) {
      const versionId = crypto.randomUUID();
      const cited = uuidArray(memory.citedItemIds);
      const at = finishedAt.toISOString();
      const [inserted] = await db.batch([
        // Refused (no row) if a cited item was deleted meanwhile: deleted content never comes back.
        db.execute(sql`
          insert into memory_versions
            (id, subject_id, markdown, statements, cited_item_ids, generator_model, judge_model, verdict, run_id, created_at)
          select ${versionId}::uuid, ${run.subjectId}, ${memory.markdown}, ${JSON.stringify(memory.statements)}::jsonb,
                 ${cited}, ${memory.generatorModel}, ${memory.judgeModel}, ${JSON.stringify(memory.verdict)}::jsonb,
                 ${run.id}::uuid, ${at}::timestamptz
          where (select count(*) from items where id = any(${cited})) = cardinality(${cited})
          returning id`),
        db.execute(sql`
          update memories set current_version_id = ${versionId}::uuid, markdown = ${memory.markdown},
                 generated_at = ${memory.generatedAt.toISOString()}::timestamptz, status = 'ready',
                 error_code = null, updated_at = ${at}::timestamptz
          where subject_id = ${run.subjectId}
            and exists (select 1 from memory_versions where id = ${versionId}::uuid)`),
        db.execute(sql`
          update memory_runs set
            status = case when exists (select 1 from memory_versions where id = ${versionId}::uuid)
                          then 'succeeded' else 'failed' end,
            outcome = case when exists (select 1 from memory_versions where id = ${versionId}::uuid)
                          then 'accepted' else 'cited_item_deleted' end,
            version_id = (select id from memory_versions where id = ${versionId}::uuid),
            verdict = ${JSON.stringify(memory.verdict)}::jsonb,
            finished_at = ${at}::timestamptz, ${statsSet(stats)}
          where id = ${run.id}::uuid`),
      ]);
      return inserted.rows.length === 1
        ? ({ written: true, versionId } satisfies AcceptResult)
        : ({ written: false, reason: "cited_item_deleted" } satisfies AcceptResult);
    },

    async runEnded(run, end: RunEnd) {
      const at = end.finishedAt.toISOString();
      await db.batch([
        db.execute(sql`
          update memory_runs set status = ${end.status}, outcome = ${end.outcome}, finished_at = ${at}::timestamptz,
                 verdict = ${end.verdict ? JSON.stringify(end.verdict) : null}::jsonb,
                 error_code = ${end.errorCode}, error_message = ${end.errorMessage.slice(0, 2000)}, ${statsSet(end.stats)}
          where id = ${run.id}::uuid`),
        db
          .insert(memories)
          .values({
            subjectId: run.subjectId,
            status: end.memoryStatus,
            errorCode: end.errorCode,
            updatedAt: end.finishedAt,
          })
          .onConflictDoUpdate({
            target: memories.subjectId,
            set: { status: end.memoryStatus, errorCode: end.errorCode, updatedAt: end.finishedAt },
          }),
      ]);
    },

    async runInterrupted(runId, subjectId, at, code, message) {
      await db
        .update(memoryRuns)
        .set({
          status: "failed",
          outcome: "interrupted",
          finishedAt: at,
          errorCode: code,
          errorMessage: message,
        })
        .where(
          and(
            eq(memoryRuns.id, runId),
            eq(memoryRuns.subjectId, subjectId),
            eq(memoryRuns.status, "running"),
          ),
        );
    },

    async runs(subjectId, { limit, cursor }) {
      const after = cursor ? decodeListCursor(cursor) : null;
      const rows = await db
        .select()
        .from(memoryRuns)
        .where(
          and(
            eq(memoryRuns.subjectId, subjectId),
            after ? keysetBefore(memoryRuns.queuedAt, memoryRuns.id, after) : undefined,
          ),
        )
        .orderBy(desc(memoryRuns.queuedAt), desc(memoryRuns.id))
        .limit(limit + 1);
      const entries: RunRecord[] = rows.slice(0, limit).map((r) => ({
        id: r.id,
        trigger: r.trigger,
        status: r.status,
        attempt: r.attempt,
        queuedAt: r.queuedAt,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt,
        turns: r.turns,
        toolCalls: r.toolCalls,
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        usage: r.usage,
        verdict: r.verdict,
        outcome: r.outcome,
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
        versionId: r.versionId,
      }));
      return pageOf(entries, rows.length > limit, (r) => ({ at: r.queuedAt, id: r.id }));
    },

    async versions(subjectId, { limit, cursor }) {
      const after = cursor ? decodeListCursor(cursor) : null;
      const rows = await db
        .select({
          id: memoryVersions.id,
          createdAt: memoryVersions.createdAt,
          runId: memoryVersions.runId,
          generatorModel: memoryVersions.generatorModel,
          judgeModel: memoryVersions.judgeModel,
          statementCount: sql<number>`jsonb_array_length(${memoryVersions.statements})`.mapWith(Number),
          redactedAt: memoryVersions.redactedAt,
          current: sql<boolean>`exists (select 1 from memories m where m.subject_id = ${memoryVersions.subjectId} and m.current_version_id = ${memoryVersions.id})`,
        })
        .from(memoryVersions)
        .where(
          and(
            eq(memoryVersions.subjectId, subjectId),
            after ? keysetBefore(memoryVersions.createdAt, memoryVersions.id, after) : undefined,
          ),
        )
        .orderBy(desc(memoryVersions.createdAt), desc(memoryVersions.id))
        .limit(limit + 1);
      const entries: VersionSummary[] = rows
        .slice(0, limit)
        .map((r) => ({ ...r, current: toBool(r.current) }));
      return pageOf(entries, rows.length > limit, (v) => ({ at: v.createdAt, id: v.id }));
    },

    async version(subjectId, versionId) {
      const rows = await db
        .select({
          id: memoryVersions.id,
          createdAt: memoryVersions.createdAt,
          runId: memoryVersions.runId,
          generatorModel: memoryVersions.generatorModel,
          judgeModel: memoryVersions.judgeModel,
          redactedAt: memoryVersions.redactedAt,
          markdown: memoryVersions.markdown,
          statements: memoryVersions.statements,
          verdict: memoryVersions.verdict,
          current: sql<boolean>`exists (select 1 from memories m where m.subject_id = ${memoryVersions.subjectId} and m.current_version_id = ${memoryVersions.id})`,
          citations: citationsOf(memoryVersions.citedItemIds, memoryVersions.subjectId),
        })
        .from(memoryVersions)
        .where(and(eq(memoryVersions.subjectId, subjectId), eq(memoryVersions.id, versionId)));
      const r = rows[0];
      if (!r) return null;
      return {
        ...r,
        statementCount: r.statements.length,
        current: toBool(r.current),
        citations: parseCitations(r.citations),
      } satisfies VersionDetail;
    },

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
      ]);
      await repairMissed(db, missedIds(payload, results[4].rows), at);
      const visibleTo = parseStringArray(row?.shared_with).filter((s) => s !== subjectId);
      return { visibleTo: unique(visibleTo), redactedSubjects: unique(redacted.map((r) => r.subjectId)) };
    },

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

// ---- citations ----------------------------------------------------------------------------------------------

/** The cited items' metadata, in citation order ([n] is position n); null fields for gone or hidden items. */
function citationsOf(
  citedIds: SQL.Aliased | typeof memoryVersions.citedItemIds,
  viewer: typeof memories.subjectId | typeof memoryVersions.subjectId,
) {
  return sql<unknown>`coalesce((
    select json_agg(json_build_object('id', c.id, 'kind', i.kind, 'title', i.title, 'occurredAt', i.occurred_at) order by c.n)
    from unnest(${citedIds}) with ordinality as c(id, n)
    left join items i on i.id = c.id and (i.owner_id = ${viewer} or ${viewer} = any(i.shared_with))
  ), '[]'::json)`;
}

function parseCitations(value: unknown): Citation[] {
  const list = parseJson(value);
  if (!Array.isArray(list)) return [];
  return list.map(
    (c: { id: string; kind: ItemKind | null; title: string | null; occurredAt: string | null }) => ({
      id: c.id,
      kind: c.kind ?? null,
      title: c.title ?? null,
      occurredAt: c.occurredAt ? new Date(c.occurredAt).toISOString() : null,
    }),
  );
}

// ---- redaction ----------------------------------------------------------------------------------------------

interface CitingRow {
  version: CitingVersion;
  /** redacted_at as Postgres printed it (optimistic check), or null. */
  redactedAt: string | null;
  /** Ids to remove from this version: the deleted item(s) plus any cited item that no longer exists. */
  removable: string[];
}

const redactAll = (citing: CitingRow[]) => citing.map((c) => redactVersion(c.version, new Set(c.removable)));

/** Versions matching `where` (alias v) as JSON: statements, redacted_at, and the ids `removable` says to drop. */
function citingVersionsJson(where: SQL, removable: SQL) {
  return sql`coalesce((
    select json_agg(json_build_object(
      'id', v.id, 'subjectId', v.subject_id, 'statements', v.statements, 'redactedAt', v.redacted_at::text,
      'removable', array(select c::text from unnest(v.cited_item_ids) c where ${removable})))
    from memory_versions v where ${where}
  ), '[]'::json)`;
}

/** A cited id (alias c) whose item no longer exists. */
const goneItem = sql`not exists (select 1 from items x where x.id = c)`;

function parseCiting(value: unknown): CitingRow[] {
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

function redactionPayload(redacted: RedactedVersion[], citing: CitingRow[]): RedactionRow[] {
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
function applyRedactions(db: Db, payload: RedactionRow[], at: Date) {
  return db.execute(sql`
    update memory_versions v set
      markdown = r.markdown, statements = r.statements, redacted_at = ${at.toISOString()}::timestamptz,
      cited_item_ids = array(select e::uuid from jsonb_array_elements_text(r.cited) with ordinality t(e, n) order by n)
    from jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) as r(id uuid, markdown text, statements jsonb, cited jsonb, prev text)
    where v.id = r.id and v.redacted_at is not distinct from r.prev::timestamptz
    returning v.id`);
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
 * A version redacted concurrently by another deletion lost our optimistic check: re-read it and remove
 * every citation of an item that no longer exists (ours is gone by now), a bounded number of times.
 */
async function repairMissed(db: Db, versionIds: string[], at: Date): Promise<void> {
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

// ---- helpers ------------------------------------------------------------------------------------------------

function statsSet(stats: RunStats) {
  return sql`turns = ${stats.turns}, tool_calls = ${stats.toolCalls}, input_tokens = ${stats.inputTokens},
             output_tokens = ${stats.outputTokens}, usage = ${JSON.stringify(stats.usage)}::jsonb`;
}

/** A uuid[] parameter (drizzle would expand a bare JS array into a parenthesised list). */
function uuidArray(ids: string[]) {
  return sql`${`{${ids.join(",")}}`}::uuid[]`;
}

function keysetBefore(
  at: typeof memoryRuns.queuedAt | typeof memoryVersions.createdAt,
  id: typeof memoryRuns.id | typeof memoryVersions.id,
  cursor: { at: Date; id: string },
) {
  return or(lt(at, cursor.at), and(eq(at, cursor.at), lt(id, cursor.id)));
}

function pageOf<T>(entries: T[], more: boolean, key: (entry: T) => { at: Date; id: string }): Page<T> {
  const last = entries.at(-1);
  return { entries, nextCursor: more && last ? encodeListCursor(key(last)) : null };
}

function parseJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

function parseStringArray(value: unknown): string[] {
  const list = parseJson(value);
  return Array.isArray(list) ? list.filter((s): s is string => typeof s === "string") : [];
}

/** A Postgres text[] printed as text: {a,b,"c d"}. */
function parseTextArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value !== "string" || value.length < 2) return [];
  const inner = value.slice(1, -1);
  if (inner === "") return [];
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|([^,]+)/g;
  for (let m = re.exec(inner); m; m = re.exec(inner)) {
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? ""));
  }
  return out;
}

/** Opaque keyset cursor for the history lists: base64url of the last entry's (time, id). */
function encodeListCursor(key: { at: Date; id: string }): string {
  return btoa(JSON.stringify([key.at.toISOString(), key.id]))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function decodeListCursor(text: string): { at: Date; id: string } {
  try {
    const [t, id] = JSON.parse(atob(text.replace(/-/g, "+").replace(/_/g, "/"))) as unknown[];
    const at = new Date(String(t));
    if (typeof id === "string" && UUID.test(id) && !Number.isNaN(at.getTime())) return { at, id };
  } catch {
    // fall through
  }
  throw new AppError("bad_request", "cursor is not valid for this list");
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const toBool = (v: unknown): boolean => v === true || v === "t" || v === "true";
const unique = (ids: string[]): string[] => [...new Set(ids)];
