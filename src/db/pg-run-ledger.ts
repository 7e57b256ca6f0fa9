/** RunLedger over Postgres: every multi-statement write is one atomic db.batch. */
import { and, eq, ne, type SQL, sql } from "drizzle-orm";
import type { RunStats } from "../domain/generation";
import type { ModelUsage } from "../domain/memory";
import { utcDay } from "../domain/usage";
import { webhookPayload } from "../domain/webhook-events";
import type { AcceptResult, RunEnd, RunLedger } from "../memory/run-ledger";
import type { Db } from "./client";
import { readDismissals } from "./dismissal-rows";
import { principalsOf } from "./item-rows";
import { recordWebhookEvents } from "./pg-webhook-outbox";
import { memories, memoryRuns, usageDaily } from "./schema";
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
        // One run at a time per subject: a row another run left `running` (its ending never landed) is closed,
        // and counted as failed in the usage ledger.
        db.execute(sql`
          with closed as (
            update memory_runs set status = 'failed', outcome = 'interrupted',
                   finished_at = ${run.startedAt.toISOString()}::timestamptz, error_code = 'run_interrupted',
                   error_message = 'a later run started before this one recorded its ending'
            where subject_id = ${run.subjectKey} and status = 'running' and id <> ${run.id}::uuid
            returning subject_id, coalesce(started_at, queued_at) as started_at)
          insert into usage_daily (subject_id, day, model, runs, failed)
          select subject_id, (started_at at time zone 'UTC')::date, '', count(*), count(*) from closed
          group by 1, 2
          ${addUsageOnConflict}`),
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
            set: { status: "generating", nextAttemptAt: null, updatedAt: run.startedAt },
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
      // The version's webhook event commits with it, or not at all.
      const announced = memory.announcement
        ? [
            db.execute(
              recordWebhookEvents(
                [
                  {
                    id: crypto.randomUUID(),
                    payload: webhookPayload("memory.updated", memory.announcement.workspaceId, finishedAt, {
                      ...memory.announcement.data,
                      version: versionId,
                    }),
                  },
                ],
                finishedAt,
                sql`exists (select 1 from memory_versions where id = ${versionId}::uuid)`,
              ),
            ),
          ]
        : [];
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
        usageUpsert(
          db,
          run.subjectKey,
          run.startedAt,
          {
            succeeded: sql`case when exists (select 1 from memory_versions where id = ${versionId}::uuid) then 1 else 0 end`,
            failed: sql`case when exists (select 1 from memory_versions where id = ${versionId}::uuid) then 0 else 1 end`,
          },
          stats.usage,
        ),
        ...announced,
      ]);
      if (inserted.rows.length === 1) return { written: true, versionId } satisfies AcceptResult;
      const reason =
        ended.rows[0]?.outcome === "statement_dismissed" ? "statement_dismissed" : "cited_item_deleted";
      return { written: false, reason } satisfies AcceptResult;
    },

    async runEnded(run, end: RunEnd) {
      const at = end.finishedAt.toISOString();
      // What GET /memory tells a subject who has no memory yet: the reason, the attempt, the next try.
      const ending = {
        status: end.memoryStatus,
        errorCode: end.errorCode,
        errorMessage: end.errorMessage.slice(0, 2000),
        attempt: run.attempt,
        nextAttemptAt: end.nextAttemptAt,
        updatedAt: end.finishedAt,
      };
      await db.batch([
        db.execute(sql`
          update memory_runs set status = ${end.status}, outcome = ${end.outcome}, finished_at = ${at}::timestamptz,
                 verdict = ${end.verdict ? JSON.stringify(end.verdict) : null}::jsonb,
                 error_code = ${end.errorCode}, error_message = ${end.errorMessage.slice(0, 2000)}, ${statsSet(end.stats)}
          where id = ${run.id}::uuid`),
        usageUpsert(
          db,
          run.subjectKey,
          run.startedAt,
          end.outcome === "budget_exhausted"
            ? { budgetExhausted: sql`1` }
            : end.status === "rejected"
              ? { rejected: sql`1` }
              : { failed: sql`1` },
          end.stats.usage,
        ),
        db
          .insert(memories)
          .values({ subjectKey: run.subjectKey, ...ending })
          .onConflictDoUpdate({ target: memories.subjectKey, set: ending }),
      ]);
    },

    async runInterrupted(runId, subjectKey, at, code, message) {
      await db.execute(sql`
        with closed as (
          update memory_runs set status = 'failed', outcome = 'interrupted', finished_at = ${at.toISOString()}::timestamptz,
                 error_code = ${code}, error_message = ${message}
          where id = ${runId}::uuid and subject_id = ${subjectKey} and status = 'running'
          returning subject_id, coalesce(started_at, queued_at) as started_at)
        insert into usage_daily (subject_id, day, model, runs, failed)
        select subject_id, (started_at at time zone 'UTC')::date, '', 1, 1 from closed
        ${addUsageOnConflict}`);
    },

    async spentOn(subjectKey, day) {
      const rows = await db
        .select({
          model: usageDaily.model,
          inputTokens: usageDaily.inputTokens,
          outputTokens: usageDaily.outputTokens,
          calls: usageDaily.llmCalls,
        })
        .from(usageDaily)
        .where(and(eq(usageDaily.subjectKey, subjectKey), eq(usageDaily.day, day), ne(usageDaily.model, "")));
      return Object.fromEntries(
        rows.map((r) => [
          r.model,
          { inputTokens: Number(r.inputTokens), outputTokens: Number(r.outputTokens), calls: r.calls },
        ]),
      );
    },
  };
}

function statsSet(stats: RunStats) {
  return sql`turns = ${stats.turns}, tool_calls = ${stats.toolCalls}, input_tokens = ${stats.inputTokens},
             output_tokens = ${stats.outputTokens}, usage = ${JSON.stringify(stats.usage)}::jsonb`;
}

/** Adds a row's counts to the day's row instead of replacing it. */
export const addUsageOnConflict = sql`on conflict (subject_id, day, model) do update set
  runs = usage_daily.runs + excluded.runs, succeeded = usage_daily.succeeded + excluded.succeeded,
  rejected = usage_daily.rejected + excluded.rejected, failed = usage_daily.failed + excluded.failed,
  budget_exhausted = usage_daily.budget_exhausted + excluded.budget_exhausted,
  llm_calls = usage_daily.llm_calls + excluded.llm_calls,
  input_tokens = usage_daily.input_tokens + excluded.input_tokens,
  output_tokens = usage_daily.output_tokens + excluded.output_tokens`;

type OutcomeCounts = Partial<Record<"succeeded" | "rejected" | "failed" | "budgetExhausted", SQL>>;

/**
 * One run's ending in the usage ledger: the run on the day's '' row (by outcome), its tokens and calls on
 * one row per model; the day is the one the run started (UTC).
 */
function usageUpsert(db: Db, subjectKey: string, startedAt: Date, counts: OutcomeCounts, usage: ModelUsage) {
  const day = utcDay(startedAt);
  const models = JSON.stringify(
    Object.entries(usage).map(([model, u]) => ({
      model,
      calls: u.calls,
      input_tokens: u.inputTokens,
      output_tokens: u.outputTokens,
    })),
  );
  const zero = sql`0`;
  return db.execute(sql`
    insert into usage_daily
      (subject_id, day, model, runs, succeeded, rejected, failed, budget_exhausted, llm_calls, input_tokens, output_tokens)
    select ${subjectKey}, ${day}::date, '', 1, ${counts.succeeded ?? zero}, ${counts.rejected ?? zero},
           ${counts.failed ?? zero}, ${counts.budgetExhausted ?? zero}, 0, 0, 0
    union all
    select ${subjectKey}, ${day}::date, u.model, 0, 0, 0, 0, 0, u.calls, u.input_tokens, u.output_tokens
    from jsonb_to_recordset(${models}::jsonb) as u(model text, calls int, input_tokens bigint, output_tokens bigint)
    where u.model <> ''
    ${addUsageOnConflict}`);
}
