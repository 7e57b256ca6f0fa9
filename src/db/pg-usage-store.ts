/**
 * The usage ledger over Postgres: usage_daily's rows of a subject (or of a workspace's subjects) per day,
 * with the reads of each subject's memory that day counted from the audit trail.
 */
import { sql } from "drizzle-orm";
import type { UsageRow, UsageStore } from "../domain/usage";
import { DEFAULT_WORKSPACE, localName, qualify, workspaceOf } from "../domain/workspaces";
import type { Db } from "./client";

interface SpendRow extends Record<string, unknown> {
  subject_id: string;
  day: string;
  model: string;
  runs: number;
  succeeded: number;
  rejected: number;
  failed: number;
  budget_exhausted: number;
  llm_calls: number;
  input_tokens: string | number;
  output_tokens: string | number;
}

interface ReadRow extends Record<string, unknown> {
  subject: string;
  day: string;
  reads: string | number;
}

export function createPgUsageStore(db: Db): UsageStore {
  return {
    async days(scope, since, until) {
      const workspace = "workspaceId" in scope ? scope.workspaceId : workspaceOf(scope.subjectKey);
      const inScope =
        "subjectKey" in scope
          ? sql`subject_id = ${scope.subjectKey}`
          : workspace === DEFAULT_WORKSPACE
            ? sql`position(chr(31) in subject_id) = 0`
            : sql`left(subject_id, ${workspace.length + 1}) = ${workspace} || chr(31)`;
      const spend = await db.execute<SpendRow>(sql`
        select subject_id, to_char(day, 'YYYY-MM-DD') as day, model, runs, succeeded, rejected, failed,
               budget_exhausted, llm_calls, input_tokens, output_tokens
        from usage_daily
        where ${inScope} and day between ${since}::date and ${until}::date`);
      const reads = await db.execute<ReadRow>(sql`
        select subject, to_char((at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, count(*) as reads
        from audit_events
        where workspace_id = ${workspace} and action = 'memory.read'
          ${"subjectKey" in scope ? sql`and subject = ${localName(scope.subjectKey)}` : sql``}
          and at >= ${since}::date and at < ${until}::date + 1
        group by 1, 2`);
      const rows = new Map<string, UsageRow>();
      const rowOf = (subjectKey: string, date: string): UsageRow => {
        const key = `${subjectKey}\u0000${date}`;
        let row = rows.get(key);
        if (!row) {
          row = {
            subjectKey,
            date,
            runs: 0,
            succeeded: 0,
            rejected: 0,
            failed: 0,
            budgetExhausted: 0,
            byModel: {},
            reads: 0,
          };
          rows.set(key, row);
        }
        return row;
      };
      for (const r of spend.rows) {
        const row = rowOf(r.subject_id, r.day);
        if (r.model === "") {
          row.runs += Number(r.runs);
          row.succeeded += Number(r.succeeded);
          row.rejected += Number(r.rejected);
          row.failed += Number(r.failed);
          row.budgetExhausted += Number(r.budget_exhausted);
        } else {
          row.byModel[r.model] = {
            inputTokens: Number(r.input_tokens),
            outputTokens: Number(r.output_tokens),
            calls: Number(r.llm_calls),
          };
        }
      }
      for (const r of reads.rows) rowOf(qualify(workspace, r.subject), r.day).reads += Number(r.reads);
      return [...rows.values()].sort((a, b) =>
        a.date === b.date ? a.subjectKey.localeCompare(b.subjectKey) : a.date.localeCompare(b.date),
      );
    },
  };
}
