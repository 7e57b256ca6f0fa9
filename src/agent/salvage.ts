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
  /** Statements of the original draft. */
  total: number;
  dropped: DroppedStatement[];
}

export const startSalvage = (total: number): DraftSalvage => ({ total, dropped: [] });

/**
 * Drops the statements at `indexes` (with their reasons) from `statements`, if what is left passes the
 * policy; the kept statements are re-indexed from 0. Null when too much would fall (revise instead).
 */
export function dropStatements(
  salvage: DraftSalvage,
  statements: CheckedStatement[],
  indexes: ReadonlySet<number>,
  reasonOf: (index: number) => string,
  policy: SalvagePolicy,
): { statements: CheckedStatement[]; salvage: DraftSalvage } | null {
  const kept = statements.filter((s) => !indexes.has(s.index));
  const dropped = statements
    .filter((s) => indexes.has(s.index))
    .map((s) => ({ section: s.section, text: s.text, reason: truncate(reasonOf(s.index), REASON_CHARS) }));
  const allDropped = [...salvage.dropped, ...dropped];
  const survivors = salvage.total - allDropped.length;
  if (kept.length === 0 || survivors < 1 || survivors < policy.minShare * salvage.total) return null;
  return {
    statements: kept.map((s, index) => ({ ...s, index })),
    salvage: { total: salvage.total, dropped: allDropped },
  };
}

/** The ledger's record of it, or null when nothing was dropped. */
export function salvageRecord(salvage: DraftSalvage): Salvage | null {
  if (salvage.dropped.length === 0) return null;
  return {
    kept: salvage.total - salvage.dropped.length,
    dropped: salvage.dropped.length,
    statements: salvage.dropped,
  };
}
