/**
 * Salvage before revision: when the checks or the judge flag only some statements of a draft, those are
 * dropped and the rest kept, provided what remains is still a memory worth serving: at least one statement
 * and at least `minShare` of the draft. Otherwise the draft goes back for revision (or is rejected).
 */
import type { DroppedStatement, Salvage } from "../domain/memory";
import type { CheckedStatement } from "./checks";
import { truncate } from "./untrusted";

export interface SalvagePolicy {
  /** Share of the draft's statements that must survive (0..1). */
  minShare: number;
}

export const DEFAULT_SALVAGE: SalvagePolicy = { minShare: 0.7 };

const REASON_CHARS = 300;

/** A draft's statements as they go through checks and judge, with what was dropped along the way. */
export interface DraftSalvage {
  /** Statements of the original draft, less those that restated a dismissal (never counted). */
  total: number;
  dropped: DroppedStatement[];
  /** Statements dropped because they restated what the subject dismissed: outside the policy's share. */
  dismissed: DroppedStatement[];
}

export const startSalvage = (total: number, dismissed: DroppedStatement[] = []): DraftSalvage => ({
  total,
  dropped: [],
  dismissed,
});

/** Why one statement is dropped, for the ledger. */
export type DropReason = Omit<DroppedStatement, "section" | "text">;

/**
 * Drops the statements at `indexes` (with their reasons) from `statements`, if what is left passes the
 * policy; the kept statements are re-indexed from 0. Null when too much would fall (revise instead).
 */
export function dropStatements(
  salvage: DraftSalvage,
  statements: CheckedStatement[],
  indexes: ReadonlySet<number>,
  reasonOf: (index: number) => DropReason,
  policy: SalvagePolicy,
): { statements: CheckedStatement[]; salvage: DraftSalvage } | null {
  const kept = statements.filter((s) => !indexes.has(s.index));
  const dropped = statements.filter((s) => indexes.has(s.index)).map((s) => droppedOf(s, reasonOf(s.index)));
  const allDropped = [...salvage.dropped, ...dropped];
  const survivors = salvage.total - allDropped.length;
  if (kept.length === 0 || survivors < 1 || survivors < policy.minShare * salvage.total) return null;
  return {
    statements: reindex(kept),
    salvage: { ...salvage, dropped: allDropped },
  };
}

export function droppedOf(s: CheckedStatement, why: DropReason): DroppedStatement {
  const { reason, ...rest } = why;
  return { section: s.section, text: s.text, reason: truncate(reason, REASON_CHARS), ...rest };
}

export const reindex = (statements: CheckedStatement[]): CheckedStatement[] =>
  statements.map((s, index) => ({ ...s, index }));

/** The ledger's record of it, or null when nothing was dropped. */
export function salvageRecord(salvage: DraftSalvage): Salvage | null {
  const statements = [...salvage.dismissed, ...salvage.dropped];
  if (statements.length === 0) return null;
  return {
    kept: salvage.total - salvage.dropped.length,
    dropped: statements.length,
    statements,
  };
}
