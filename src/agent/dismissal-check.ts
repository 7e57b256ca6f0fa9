/**
 * The deterministic check that keeps a dismissed statement out: after the draft's checks (checks.ts) and
 * before the judge, a draft statement that restates one the subject dismissed (the same normalised text, or
 * the same citations and near-identical words: domain/statements.ts restatedDismissal) is dropped. It is the
 * subject's decision, not a fault of the draft, so it never sends the draft back and does not count against
 * the salvage share; the ledger lists it (cause "dismissed").
 */
import type { DroppedStatement } from "../domain/memory";
import { type Dismissal, restatedDismissal, statementKey } from "../domain/statements";
import type { CheckedStatement, DraftCheck } from "./checks";
import { droppedOf, reindex } from "./salvage";

export type DismissalChecked = DraftCheck & { dismissed: DroppedStatement[] };

export function withoutDismissed(
  check: DraftCheck,
  dismissals: readonly Dismissal[],
  /** The previous memory's statement ids by statementKey, for the ledger. */
  previousIds: ReadonlyMap<string, string> = new Map(),
): DismissalChecked {
  if (dismissals.length === 0 || check.statements.length === 0) return { ...check, dismissed: [] };
  const dismissed: DroppedStatement[] = [];
  const kept: CheckedStatement[] = [];
  for (const s of check.statements) {
    const match = restatedDismissal(s, dismissals);
    if (!match) {
      kept.push(s);
      continue;
    }
    const statementId = previousIds.get(statementKey(s));
    dismissed.push(
      droppedOf(s, {
        reason: `restates a statement the subject dismissed${match.reason ? `: ${match.reason}` : ""}`,
        cause: "dismissed",
        ...(statementId ? { statementId } : {}),
      }),
    );
  }
  if (dismissed.length === 0) return { ...check, dismissed };
  const statements = reindex(kept);
  if (statements.length === 0) {
    return {
      ok: false,
      missingBlock: false,
      failures: ["every statement restates one the subject dismissed; write what the items say otherwise"],
      offending: [],
      structural: true,
      statements,
      reasons: new Map(),
      dismissed,
    };
  }
  if (check.ok) return { ok: true, statements, dismissed };
  const newIndex = new Map(kept.map((s, i) => [s.index, i]));
  const offending = check.offending.flatMap((i) => {
    const n = newIndex.get(i);
    return n === undefined ? [] : [n];
  });
  const reasons = new Map<number, string[]>();
  for (const [i, why] of check.reasons) {
    const n = newIndex.get(i);
    if (n !== undefined) reasons.set(n, why);
  }
  if (offending.length === 0 && !check.structural) return { ok: true, statements, dismissed };
  return { ...check, statements, offending, reasons, dismissed };
}
