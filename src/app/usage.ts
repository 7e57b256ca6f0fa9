/**
 * The usage ledger's reads: a subject's days (GET /me/usage) and every subject's of the workspace, sortable
 * by estimated cost (GET /usage, admin). Days are UTC dates; a run counts on the day it started.
 */
import { AppError } from "../domain/errors";
import { type UsageDayJson, type UsageRow, usageDay, utcDay } from "../domain/usage";
import { localName } from "../domain/workspaces";
import { type Caller, requireScope } from "./caller";
import type { Services } from "./services";

const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;

export interface UsageRange {
  since?: string;
  until?: string;
}

/** GET /me/usage: the caller's days, oldest first. */
export async function myUsage(services: Services, caller: Caller, range: UsageRange) {
  const { since, until } = daysOf(services, range);
  const rows = await services.usage.days({ subjectKey: caller.subjectKey }, since, until);
  return { since, until, days: rows.map((row) => usageDay(row, services.config.usage.prices)) };
}

export type UsageSort = "cost" | "tokens" | "subject";

/** GET /usage: per subject, its days and totals, by estimated cost (highest first) unless asked otherwise. */
export async function workspaceUsage(
  services: Services,
  caller: Caller,
  range: UsageRange & { sort?: UsageSort },
) {
  requireScope(caller, "admin");
  const { since, until } = daysOf(services, range);
  const rows = await services.usage.days({ workspaceId: caller.workspaceId }, since, until);
  const bySubject = new Map<string, UsageRow[]>();
  for (const row of rows) bySubject.set(row.subjectKey, [...(bySubject.get(row.subjectKey) ?? []), row]);
  const subjects = [...bySubject.entries()].map(([key, subjectRows]) => {
    const days = subjectRows.map((row) => usageDay(row, services.config.usage.prices));
    return { subject: localName(key), ...totals(days), days };
  });
  const sort = range.sort ?? "cost";
  subjects.sort((a, b) =>
    sort === "subject"
      ? a.subject.localeCompare(b.subject)
      : sort === "tokens"
        ? b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens) ||
          a.subject.localeCompare(b.subject)
        : b.estimatedCostUsd - a.estimatedCostUsd || a.subject.localeCompare(b.subject),
  );
  return { since, until, sort, subjects };
}

function totals(days: UsageDayJson[]) {
  const sum = (pick: (d: UsageDayJson) => number) => days.reduce((n, d) => n + pick(d), 0);
  return {
    runs: sum((d) => d.runs),
    llmCalls: sum((d) => d.llmCalls),
    inputTokens: sum((d) => d.inputTokens),
    outputTokens: sum((d) => d.outputTokens),
    reads: sum((d) => d.reads),
    estimatedCostUsd: Math.round(sum((d) => d.estimatedCostUsd) * 1_000_000) / 1_000_000,
  };
}

function daysOf(services: Services, range: UsageRange): { since: string; until: string } {
  const today = utcDay(services.clock.now());
  const until = range.until === undefined ? today : dayOf(range.until, "until");
  const since =
    range.since === undefined
      ? utcDay(new Date(Date.parse(`${until}T00:00:00Z`) - (DEFAULT_DAYS - 1) * 86_400_000))
      : dayOf(range.since, "since");
  const span = (Date.parse(until) - Date.parse(since)) / 86_400_000;
  if (span < 0) throw new AppError("bad_request", '"since" must not be after "until"');
  if (span >= MAX_DAYS) throw new AppError("bad_request", `at most ${MAX_DAYS} days at a time`);
  return { since, until };
}

function dayOf(value: string, name: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(date.getTime()) && utcDay(date) === value;
  if (!valid) throw new AppError("bad_request", `${name} must be a date, YYYY-MM-DD`);
  return value;
}
