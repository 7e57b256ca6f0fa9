/** MemoryReader over Postgres: the read model of GET /memory, the history and the runs ledger listing. */
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { isRunErrorCode, type MemoryStatus } from "../domain/memory";
import type {
  CurrentMemory,
  MemoryReader,
  RunRecord,
  VersionDetail,
  VersionSummary,
} from "../memory/memory-reader";
import { citationsOf, parseCitations } from "./citation-rows";
import type { Db } from "./client";
import { decodeListCursor, keysetBefore, pageOf } from "./list-page";
import { memories, memoryRuns, memoryVersions } from "./schema";

export function createPgMemoryReader(db: Db): MemoryReader {
  return {
    async current(subjectKey) {
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
          citations: citationsOf(memoryVersions.citedItemIds, memories.subjectKey),
        })
        .from(memories)
        .leftJoin(memoryVersions, eq(memoryVersions.id, memories.currentVersionId))
        .where(eq(memories.subjectKey, subjectKey));
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
        subjectKey,
        status: row.status as MemoryStatus,
        errorCode: isRunErrorCode(row.errorCode) ? row.errorCode : null,
        checkedAt: row.checkedAt,
        version,
      } satisfies CurrentMemory;
    },

    async runs(subjectKey, { limit, cursor }) {
      const after = cursor ? decodeListCursor(cursor) : null;
      const rows = await db
        .select()
        .from(memoryRuns)
        .where(
          and(
            eq(memoryRuns.subjectKey, subjectKey),
            after ? keysetBefore(memoryRuns.queuedAt, memoryRuns.id, after) : undefined,
          ),
        )
        .orderBy(desc(memoryRuns.queuedAt), desc(memoryRuns.id))
        .limit(limit + 1);
      const entries: RunRecord[] = rows.slice(0, limit).map(({ subjectKey: _subject, ...run }) => ({
        ...run,
        errorCode: isRunErrorCode(run.errorCode) ? run.errorCode : null,
      }));
      return pageOf(entries, rows.length > limit, (r) => ({ at: r.queuedAt, id: r.id }));
    },

    async versions(subjectKey, { limit, cursor }) {
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
          current: sql<boolean>`exists (select 1 from memories m where m.subject_id = ${memoryVersions.subjectKey} and m.current_version_id = ${memoryVersions.id})`,
        })
        .from(memoryVersions)
        .where(
          and(
            eq(memoryVersions.subjectKey, subjectKey),
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

    async version(subjectKey, versionId) {
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
          current: sql<boolean>`exists (select 1 from memories m where m.subject_id = ${memoryVersions.subjectKey} and m.current_version_id = ${memoryVersions.id})`,
          citations: citationsOf(memoryVersions.citedItemIds, memoryVersions.subjectKey),
        })
        .from(memoryVersions)
        .where(and(eq(memoryVersions.subjectKey, subjectKey), eq(memoryVersions.id, versionId)));
      const r = rows[0];
      if (!r) return null;
      return {
        ...r,
        statementCount: r.statements.length,
        current: toBool(r.current),
        citations: parseCitations(r.citations),
      } satisfies VersionDetail;
    },
  };
}

const toBool = (v: unknown): boolean => v === true || v === "t" || v === "true";
