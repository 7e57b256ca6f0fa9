/**
 * What changed between two versions of a memory, statement by statement (by statement id, which a
 * statement keeps while it is carried unchanged), and why each statement of the older one is gone:
 *   - dismissed / redacted: taken out of the newer version after it was written (its `removed` log), or
 *     dropped from its draft for restating a dismissal;
 *   - superseded: its run's judge found a newer item superseding it (the ledger's `superseded`, or a
 *     statement salvage dropped as superseded);
 *   - unsupported: its run dropped a restatement of it as unsupported by its cited items (or by the checks);
 *   - dropped: the generator did not carry it over.
 * A statement the older version held when it was written but has lost since (redacted), and that the newer
 * one lost too after it was written (redacted or dismissed), is listed without its text, which may have
 * come from an item the subject can no longer see.
 */
import type { DroppedStatement, RemovalReason } from "../domain/memory";
import type { Citation, VersionDetail } from "./memory-reader";
import { type ServedStatement, servedStatements } from "./read-model";

export interface RemovedEntry {
  statement:
    | ServedStatement
    | { id: string; section: string; text: null; citations: Citation[]; since: null; firstStated: null };
  reason: RemovalReason;
}

export interface VersionDiff {
  from: string | null;
  to: string;
  added: ServedStatement[];
  removed: RemovedEntry[];
  kept: ServedStatement[];
}

const CAUSE_REASON: Record<NonNullable<DroppedStatement["cause"]>, RemovalReason> = {
  checks: "unsupported",
  unsupported: "unsupported",
  superseded: "superseded",
  dismissed: "dismissed",
};

export function diffVersions(from: VersionDetail | null, to: VersionDetail): VersionDiff {
  const before = from ? servedStatements(from) : [];
  const after = servedStatements(to);
  const beforeIds = new Set(before.map((s) => s.id));
  const afterIds = new Set(after.map((s) => s.id));
  const removed: RemovedEntry[] = before
    .filter((s) => !afterIds.has(s.id))
    .map((statement) => ({ statement, reason: reasonGone(statement, to) }));
  // Taken out of `to` after it was written, and no longer in `from` either (redacted from both, or
  // dismissed from `to` and redacted from `from`), though `from` held it when written: listed without words.
  const heldBefore = new Set((from?.removed ?? []).map((r) => r.id));
  for (const entry of to.removed) {
    if (beforeIds.has(entry.id) || !heldBefore.has(entry.id)) continue;
    if (removed.some((r) => r.statement.id === entry.id)) continue;
    removed.push({
      statement: {
        id: entry.id,
        section: entry.section,
        text: null,
        citations: [],
        since: null,
        firstStated: null,
      },
      reason: entry.reason,
    });
  }
  return {
    from: from?.id ?? null,
    to: to.id,
    added: after.filter((s) => !beforeIds.has(s.id)),
    removed,
    kept: after.filter((s) => beforeIds.has(s.id)),
  };
}

function reasonGone(statement: ServedStatement, to: VersionDetail): RemovalReason {
  const logged = to.removed.find((r) => r.id === statement.id);
  if (logged) return logged.reason;
  const same = (x: { statementId?: string | null; text: string }) =>
    x.statementId === statement.id || x.text === statement.text;
  if (to.run?.superseded?.some(same)) return "superseded";
  const dropped = to.run?.salvaged?.statements.find(same);
  if (dropped) return CAUSE_REASON[dropped.cause ?? "unsupported"];
  return "dropped";
}
