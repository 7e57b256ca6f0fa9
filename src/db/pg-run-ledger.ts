/** RunLedger over Postgres: every multi-statement write is one atomic db.batch. */
import { and, eq, ne, sql } from "drizzle-orm";
import type { RunStats } from "../domain/generation";
import type { AcceptResult, RunEnd, RunLedger } from "../memory/run-ledger";
import type { Db } from "./client";
import { readDismissals } from "./dismissal-rows";
import { principalsOf } from "./item-rows";
import { memories, memoryRuns } from "./schema";
import { uuidArray } from "./sql-values";

export function createPgRunLedger(db: Db): RunLedger {
  return {
    async materialChangedSinceMemory(subjectKey) {
      const rows = await db
        .select({
          versionId: memories.currentVersionId,
          generatedAt: memories.generatedAt,
          materialChangedAt: memories.materialChangedAt,
        })
        .from(memories)
        .where(eq(memories.subjectKey, subjectKey));
      const row = rows[0];
      if (!row?.versionId || !row.generatedAt) return null;
      return row.materialChangedAt !== null && row.materialChangedAt > row.generatedAt;
    },

    async confirmUnchanged(subjectKey, at) {
      await db.update(memories).set({ checkedAt: at }).where(eq(memories.subjectKey, subjectKey));
    },

    async dismissals(subjectKey) {
      const dismissals = await readDismissals(db, subjectKey);
      return { dismissals, seq: Math.max(0, ...dismissals.map((d) => d.seq)) };
    },

    async runStarted(run) {
      await db.batch([
        // One run at a time per subject: a row another run left `running` (its ending never landed) is closed.
        db
          .update(memoryRuns)
          .set({
            status: "failed",
            outcome: "interrupted",
            finishedAt: run.startedAt,
            errorCode: "run_interrupted",
            errorMessage: "a later run started before this one recorded its ending",
          })
          .where(
            and(
              eq(memoryRuns.subjectKey, run.subjectKey),
              eq(memoryRuns.status, "running"),
              ne(memoryRuns.id, run.id),
            ),
          ),
        db.insert(memoryRuns).values({
          id: run.id,
          subjectKey: run.subjectKey,
          trigger: run.trigger,
          status: "running",
          attempt: run.attempt,
          queuedAt: run.queuedAt,
          startedAt: run.startedAt,
        }),
        db
          .insert(memories)
          .values({ subjectKey: run.subjectKey, status: "generating", updatedAt: run.startedAt })
          .onConflictDoUpdate({
            target: memories.subjectKey,
            set: { status: "generating", updatedAt: run.startedAt },
          }),
      ]);
    },

    async runAccepted(run, memory, stats, finishedAt) {
      const versionId = crypto.randomUUID();
      const cited = uuidArray(memory.citedItemIds);
      const at = finishedAt.toISOString();
      const seq = memory.dismissalSeq ?? null;
      const dismissedSince = sql`exists (select 1 from memory_dismissals d
        where d.subject_id = ${run.subjectKey} and ${seq}::bigint is not null and d.seq > ${seq}::bigint)`;
      const [, inserted, , ended] = await db.batch([
        // The memories row is locked first, as a dismissal locks it (pg-dismissal-store.ts): a dismissal
        // either commits before this batch looks for it, or waits for the new version and rewrites it.
        db.execute(sql`select 1 from memories where subject_id = ${run.subjectKey} for update`),
        // Refused (no row) if a cited item was deleted meanwhile, or the subject lost access to it (the
        // access rule, as every read applies it): content a subject may no longer see never comes back.
        // Refused too if the subject dismissed a statement after the run read its dismissals.
        db.execute(sql`
          insert into memory_versions
            (id, subject_id, markdown, statements, cited_item_ids, generator_model, judge_model, verdict, run_id, created_at)
          select ${versionId}::uuid, ${run.subjectKey}, ${memory.markdown}, ${JSON.stringify(memory.statements)}::jsonb,
                 ${cited}, ${memory.generatorModel}, ${memory.judgeModel}, ${JSON.stringify(memory.verdict)}::jsonb,
                 ${run.id}::uuid, ${at}::timestamptz
          where (select count(*) from items i where i.id = any(${cited})
                   and (i.owner_id = ${run.subjectKey} or i.shared_with && ${principalsOf(sql`${run.subjectKey}::text`)}))
                = cardinality(${cited})
            and not ${dismissedSince}
          returning id`),
        db.execute(sql`
          update memories set current_version_id = ${versionId}::uuid, markdown = ${memory.markdown},
                 generated_at = ${memory.generatedAt.toISOString()}::timestamptz, status = 'ready',
                 error_code = null, updated_at = ${at}::timestamptz
          where subject_id = ${run.subjectKey}
            and exists (select 1 from memory_versions where id = ${versionId}::uuid)`),
        db.execute(sql`
          update memory_runs set
            status = case when exists (select 1 from memory_versions where id = ${versionId}::uuid)
                          then 'succeeded' else 'failed' end,
            outcome = case when exists (select 1 from memory_versions where id = ${versionId}::uuid) then 'accepted'
                           when ${dismissedSince} then 'statement_dismissed' else 'cited_item_deleted' end,
            version_id = (select id from memory_versions where id = ${versionId}::uuid),
            verdict = ${JSON.stringify(memory.verdict)}::jsonb,
            salvaged = ${memory.salvaged ? JSON.stringify(memory.salvaged) : null}::jsonb,
            superseded = ${memory.superseded?.length ? JSON.stringify(memory.superseded) : null}::jsonb,
            finished_at = ${at}::timestamptz, ${statsSet(stats)}
          where id = ${run.id}::uuid
          returning outcome`),
      ]);
      if (inserted.rows.length === 1) return { written: true, versionId } satisfies AcceptResult;
      const reason =
        ended.rows[0]?.outcome === "statement_dismissed" ? "statement_dismissed" : "cited_item_deleted";
      return { written: false, reason } satisfies AcceptResult;
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
            subjectKey: run.subjectKey,
            status: end.memoryStatus,
            errorCode: end.errorCode,
            updatedAt: end.finishedAt,
          })
          .onConflictDoUpdate({
            target: memories.subjectKey,
            set: { status: end.memoryStatus, errorCode: end.errorCode, updatedAt: end.finishedAt },
          }),
      ]);
    },

    async runInterrupted(runId, subjectKey, at, code, message) {
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
            eq(memoryRuns.subjectKey, subjectKey),
            eq(memoryRuns.status, "running"),
          ),
        );
    },
  };
}

function statsSet(stats: RunStats) {
  return sql`turns = ${stats.turns}, tool_calls = ${stats.toolCalls}, input_tokens = ${stats.inputTokens},
             output_tokens = ${stats.outputTokens}, usage = ${JSON.stringify(stats.usage)}::jsonb`;
}
