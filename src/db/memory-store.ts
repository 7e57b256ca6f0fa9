/** MemoryStore over Postgres (drizzle, Neon HTTP mode): every multi-statement write is one atomic db.batch. */
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { RunStats } from "../domain/generation";
import type { ItemKind } from "../domain/items";
import type {
  AcceptResult,
  Citation,
  CurrentMemory,
  MemoryStatus,
  MemoryStore,
  RunEnd,
  RunRecord,
  VersionDetail,
  VersionSummary,
} from "../memory/memory-store";
import type { Db } from "./client";
import { decodeListCursor, keysetBefore, pageOf } from "./list-page";
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
import { memories, memoryRuns, memoryVersions } from "./schema";
import { parseJson, parseStringArray, parseTextArray, uuidArray } from "./sql-values";

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
      const entries: RunRecord[] = rows.slice(0, limit).map(({ subjectId: _subject, ...run }) => run);
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

// ---- helpers ------------------------------------------------------------------------------------------------

function statsSet(stats: RunStats) {
  return sql`turns = ${stats.turns}, tool_calls = ${stats.toolCalls}, input_tokens = ${stats.inputTokens},
             output_tokens = ${stats.outputTokens}, usage = ${JSON.stringify(stats.usage)}::jsonb`;
}

const toBool = (v: unknown): boolean => v === true || v === "t" || v === "true";
const unique = (ids: string[]): string[] => [...new Set(ids)];
