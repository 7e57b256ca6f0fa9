/** MemoryReader over Postgres: the read model of GET /memory, the history and the runs ledger listing. */
import { and, desc, eq, lte, type SQL, sql } from "drizzle-orm";
import { isRunErrorCode, type MemoryStatus, type Salvage, type SupersededStatement } from "../domain/memory";
import type {
  CurrentMemory,
  MemoryReader,
  RunRecord,
  VersionDetail,
  VersionListEntry,
} from "../memory/memory-reader";
import { citationsOf, parseCitations } from "./citation-rows";
import type { Db } from "./client";
import { decodeListCursor, keysetBefore, pageOf } from "./list-page";
import { memories, memoryRuns, memoryVersions } from "./schema";
import { parseJson } from "./sql-values";

export function createPgMemoryReader(db: Db): MemoryReader {
  return {
    async current(subjectKey) {
      const rows = await db
        .select({
          status: memories.status,
          errorCode: memories.errorCode,
          errorMessage: memories.errorMessage,
          attempt: memories.attempt,
          nextAttemptAt: memories.nextAttemptAt,
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
        lastFailure:
          row.errorMessage === null
            ? null
            : { message: row.errorMessage, attempt: row.attempt, nextAttemptAt: row.nextAttemptAt },
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
          dismissed: takenOut("dismissed"),
          redacted: takenOut("redacted"),
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
      const entries: VersionListEntry[] = rows.slice(0, limit).map(({ dismissed, redacted, ...r }) => ({
        ...r,
        current: toBool(r.current),
        takenOut: { dismissed, redacted },
      }));
      return pageOf(entries, rows.length > limit, (v) => ({ at: v.createdAt, id: v.id }));
    },

    async version(subjectKey, versionId) {
      return versionWhere(db, subjectKey, eq(memoryVersions.id, versionId));
    },

    async versionAt(subjectKey, at) {
      return versionWhere(db, subjectKey, lte(memoryVersions.createdAt, at));
    },

    async versionBefore(subjectKey, versionId) {
      const before = sql`(${memoryVersions.createdAt}, ${memoryVersions.id}) < (select v.created_at, v.id from memory_versions v where v.id = ${versionId}::uuid and v.subject_id = ${subjectKey})`;
      return versionWhere(db, subjectKey, before);
    },
  };
}

/** How many statements were taken out of a version after it was written, for this reason. */
const takenOut = (reason: "dismissed" | "redacted") =>
  sql<number>`(select count(*) from jsonb_array_elements(${memoryVersions.removed}) e where e->>'reason' = ${reason})`.mapWith(
    Number,
  );

/** The subject's newest version matching `where`, with what its run recorded. */
async function versionWhere(db: Db, subjectKey: string, where: SQL): Promise<VersionDetail | null> {
  const run = (column: string) =>
    sql`(select r.${sql.raw(column)} from memory_runs r where r.id = ${memoryVersions.runId})`;
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
      removed: memoryVersions.removed,
      current: sql<boolean>`exists (select 1 from memories m where m.subject_id = ${memoryVersions.subjectKey} and m.current_version_id = ${memoryVersions.id})`,
      citations: citationsOf(memoryVersions.citedItemIds, memoryVersions.subjectKey),
      startedAt: sql<Date | null>`${run("started_at")}`.mapWith(memoryRuns.startedAt),
      hasRun: sql<boolean>`exists (select 1 from memory_runs r where r.id = ${memoryVersions.runId})`,
      salvaged: sql<unknown>`${run("salvaged")}`,
      superseded: sql<unknown>`${run("superseded")}`,
    })
    .from(memoryVersions)
    .where(and(eq(memoryVersions.subjectKey, subjectKey), where))
    .orderBy(desc(memoryVersions.createdAt), desc(memoryVersions.id))
    .limit(1);
  const r = rows[0];
  if (!r) return null;
  const { startedAt, hasRun, salvaged, superseded, ...version } = r;
  return {
    ...version,
    statementCount: r.statements.length,
    current: toBool(r.current),
    citations: parseCitations(r.citations),
    generatedAt: startedAt ?? r.createdAt,
    removed: r.removed ?? [],
    run: toBool(hasRun)
      ? {
          salvaged: (parseJson(salvaged) as Salvage | null) ?? null,
          superseded: (parseJson(superseded) as SupersededStatement[] | null) ?? null,
        }
      : null,
  } satisfies VersionDetail;
}

const toBool = (v: unknown): boolean => v === true || v === "t" || v === "true";
