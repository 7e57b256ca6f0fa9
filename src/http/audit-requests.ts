/** The query strings of the audit and usage routes, checked into the operations' inputs. */
import { parseInstant } from "../app/statements";
import type { UsageSort } from "../app/usage";
import { AUDIT_ACTIONS, type AuditAction, type AuditFilter } from "../domain/audit";
import { AppError } from "../domain/errors";
import { textProblem } from "../domain/safe-text";

export const AUDIT_PAGE_LIMIT = { default: 50, max: 1000 } as const;

type Query = (name: string) => string | undefined;

export function auditFilterOf(query: Query): Omit<AuditFilter, "workspaceId"> {
  const action = query("action");
  if (action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(action)) {
    throw new AppError("bad_request", `action must be one of ${AUDIT_ACTIONS.join(", ")}`);
  }
  const since = query("since");
  const until = query("until");
  const cursor = query("cursor");
  return {
    ...nameOf(query, "actor"),
    ...nameOf(query, "subject"),
    ...(action === undefined ? {} : { action: action as AuditAction }),
    ...(since === undefined ? {} : { since: parseInstant(since, "since") }),
    ...(until === undefined ? {} : { until: parseInstant(until, "until") }),
    ...(cursor === undefined || cursor === "" ? {} : { cursor }),
    limit: limitOf(query("limit")),
  };
}

function nameOf(query: Query, key: "actor" | "subject"): Partial<Record<"actor" | "subject", string>> {
  const value = query(key);
  if (value === undefined) return {};
  if (value.length === 0 || value.length > 400 || textProblem(value) !== null) {
    throw new AppError("bad_request", `${key} must be a name of 1-400 characters`);
  }
  return { [key]: value };
}

function limitOf(value: string | undefined): number {
  if (value === undefined || value === "") return AUDIT_PAGE_LIMIT.default;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > AUDIT_PAGE_LIMIT.max) {
    throw new AppError("bad_request", `limit must be a whole number from 1 to ${AUDIT_PAGE_LIMIT.max}`);
  }
  return n;
}

export function usageRangeOf(query: Query) {
  const since = query("since");
  const until = query("until");
  return { ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) };
}

export function usageSortOf(value: string | undefined): UsageSort | undefined {
  if (value === undefined) return undefined;
  if (value !== "cost" && value !== "tokens" && value !== "subject") {
    throw new AppError("bad_request", 'sort must be "cost", "tokens" or "subject"');
  }
  return value;
}
