/**
 * A statement's life across versions: its identity (text and cited items), the stable id and first-stated
 * date it keeps while it is carried unchanged, and when a draft statement restates one the subject
 * dismissed. Pure functions; the run stamps a version's statements with them before writing it.
 */
import type { Statement } from "./memory";

/** A statement's identity: its text and the set of items it cites (the section does not count). */
export const statementKey = (s: { text: string; itemIds: readonly string[] }): string =>
  JSON.stringify([s.text, [...new Set(s.itemIds)].sort()]);

/**
 * The version's statements with their id and firstStated: a statement of the previous version carried
 * unchanged (same key) keeps both; any other gets a new id and `at` (when the version is written). Two
 * statements of one draft with the same key get distinct ids.
 */
export function stampStatements(
  drafts: readonly Statement[],
  previous: readonly Statement[] | null,
  at: Date,
  newId: () => string,
): Statement[] {
  const carried = new Map<string, Statement>();
  for (const s of previous ?? []) if (s.id && !carried.has(statementKey(s))) carried.set(statementKey(s), s);
  const used = new Set<string>();
  return drafts.map((draft) => {
    const before = carried.get(statementKey(draft));
    const keep = before?.id !== undefined && !used.has(before.id);
    const id = keep ? before.id! : newId();
    used.add(id);
    return {
      section: draft.section,
      text: draft.text,
      itemIds: draft.itemIds,
      id,
      firstStated: keep && before.firstStated ? before.firstStated : at.toISOString(),
      ...(draft.people ? { people: draft.people } : {}),
    };
  });
}

/**
 * A statement as served: its stored id and firstStated, or, for a statement written before they existed
 * (an old edge-cache entry), one derived from its version and position.
 */
export function identityOf(
  s: Statement,
  index: number,
  version: { id: string; createdAt: Date },
): { id: string; firstStated: string } {
  return {
    id: s.id ?? `${version.id}:${index}`,
    firstStated: s.firstStated ?? version.createdAt.toISOString(),
  };
}

/** What the subject dismissed: the statement as it was, so later runs do not say it again. */
export interface Dismissal {
  id: string;
  statementId: string;
  section: string;
  text: string;
  itemIds: string[];
  reason: string | null;
  at: Date;
}

/** Lower-cased words (letters and digits), joined by single spaces: punctuation and spacing do not count. */
export function normalizedText(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
}

/** How alike two statements' words must be, with the same citations, to count as the same statement. */
export const NEAR_IDENTICAL = 0.85;

/** 1 - (word-level edit distance / the longer word count): 1 for the same words in the same order. */
export function wordSimilarity(a: string, b: string): number {
  const x = normalizedText(a).split(" ").filter(Boolean);
  const y = normalizedText(b).split(" ").filter(Boolean);
  const longest = Math.max(x.length, y.length);
  if (longest === 0) return 1;
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + cost));
    }
    row = next;
  }
  return 1 - row[y.length]! / longest;
}

const sameCitations = (a: readonly string[], b: readonly string[]): boolean => {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((id) => y.has(id));
};

/** The figures a text states (digit runs: dates, amounts, counts), in order. */
const figuresOf = (text: string): string => (normalizedText(text).match(/\p{N}+/gu) ?? []).join(" ");

/**
 * The dismissal a statement restates, if any: the same normalised text (whatever it cites), or the same
 * citations, near-identical words and the same figures (a rewording; a statement that gives another date
 * or number is a correction, not a restatement).
 */
export function restatedDismissal<D extends Dismissal>(
  s: { text: string; itemIds: readonly string[] },
  dismissals: readonly D[],
): D | undefined {
  const text = normalizedText(s.text);
  return dismissals.find(
    (d) =>
      normalizedText(d.text) === text ||
      (sameCitations(d.itemIds, s.itemIds) &&
        figuresOf(d.text) === figuresOf(s.text) &&
        wordSimilarity(d.text, s.text) >= NEAR_IDENTICAL),
  );
}
