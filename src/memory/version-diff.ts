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
 * come from an item the subject can no longer see. A statement dismissed from the newer version that the
 * older one did not hold is listed as dismissed, with its words from the standing dismissal (access loss
 * deletes a dismissal citing the lost item, so those words are still the subject's to see).
 */
import type { DroppedStatement, RemovalReason, RemovedStatement } from "../domain/memory";
import type { DismissalView } from "./dismissal-store";
import type { Citation, VersionDetail } from "./memory-reader";
import { type ServedStatement, servedStatements } from "./read-model";

export interface RemovedEntry {
  statement:
    | ServedStatement
    | {
        id: string;
        section: string;
        text: string | null;
        citations: Citation[];
        since: null;
        firstStated: null;
        /** Unknown without the version that held it. */
        people: [];
      };
  reason: RemovalReason;
  /** For a dismissed statement: the dismissal while it stands (a withdrawn one is gone). */
  dismissal?: { id: string; reason: string | null; at: string };
}

export interface VersionDiff {
  from: string | null;
  to: string;
  added: ServedStatement[];
  removed: RemovedEntry[];
  kept: ServedStatement[];
}

/** A standing dismissal of the subject, as the diff needs it. */
export type StandingDismissal = Pick<
  DismissalView,
  "id" | "statementId" | "text" | "reason" | "at" | "citations"
>;

const CAUSE_REASON: Record<NonNullable<DroppedStatement["cause"]>, RemovalReason> = {
  checks: "unsupported",
  unsupported: "unsupported",
  superseded: "superseded",
  dismissed: "dismissed",
};

/**
 * `dismissals` are the subject's standing dismissals: a statement dismissed from `to` after it was written
 * is listed as removed (dismissed) with the dismissal's reason, and with its words from the dismissal when
 * `from` did not hold it (the first version, or a statement `to` added).
 */
export function diffVersions(
  from: VersionDetail | null,
  to: VersionDetail,
  dismissals: readonly StandingDismissal[] = [],
): VersionDiff {
  const before = from ? servedStatements(from) : [];
  const after = servedStatements(to);
  const beforeIds = new Set(before.map((s) => s.id));
  const afterIds = new Set(after.map((s) => s.id));
  const dismissalOf = (entry: RemovedStatement | undefined) => {
    if (entry?.reason !== "dismissed") return undefined;
    const same = dismissals.filter((d) => d.statementId === entry.id);
    return same.find((d) => d.at.toISOString() === entry.at) ?? same[0];
  };
  const withDismissal = (entry: RemovedEntry, logged: RemovedStatement | undefined): RemovedEntry => {
    const dismissal = dismissalOf(logged);
    return dismissal
      ? {
          ...entry,
          dismissal: { id: dismissal.id, reason: dismissal.reason, at: dismissal.at.toISOString() },
        }
      : entry;
  };
  const removed: RemovedEntry[] = before
    .filter((s) => !afterIds.has(s.id))
    .map((statement) =>
      withDismissal(
        { statement, reason: reasonGone(statement, to) },
        to.removed.find((r) => r.id === statement.id),
      ),
    );
  // Taken out of `to` after it was written and not in `from`: a dismissal (its words from the dismissal
  // while it stands), or a statement `from` held when written but lost since (redacted from both, or
  // dismissed from `to` and redacted from `from`), listed without words.
  const heldBefore = new Set((from?.removed ?? []).map((r) => r.id));
  for (const entry of to.removed) {
    if (beforeIds.has(entry.id) || removed.some((r) => r.statement.id === entry.id)) continue;
    if (!heldBefore.has(entry.id) && entry.reason !== "dismissed") continue;
    const dismissal = dismissalOf(entry);
    removed.push(
      withDismissal(
        {
          statement: {
            id: entry.id,
            section: entry.section,
            text: dismissal?.text ?? null,
            citations: dismissal?.citations ?? [],
            since: null,
            firstStated: null,
            people: [],
          },
          reason: entry.reason,
        },
        entry,
      ),
    );
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
