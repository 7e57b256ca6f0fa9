/**
 * Privacy: no statement of a subject's memory may come from an item that subject cannot see. Two checks:
 * by citation (a cited item the subject cannot read), and by text (a statement sharing a run of
 * SHINGLE content words with an item the subject cannot see, where that run occurs in no item it can).
 */
import { contentWords } from "../../test/support/node/fake-llm/text";
import type { CitedItem, ObservedStatement, WorkspaceItem } from "./observation";

/** Consecutive content words that make a passage recognisable (shorter runs are common phrases). */
export const SHINGLE = 5;

export interface Leak {
  statement: string;
  how: "citation" | "text";
  /** The invisible item id (citation) or the shared words (text). */
  detail: string;
}

/** Who may see an item: its owner and those it is shared with (teams: `team:<id>` in `sharedWith`). */
export type Visibility = (subjectKey: string, item: WorkspaceItem) => boolean;

export const userVisibility: Visibility = (subjectKey, item) =>
  item.owner === subjectKey || item.sharedWith.includes(subjectKey);

/** Word runs found only in items `subjectKey` cannot see: the fingerprints of others' private text. */
export function privateShingles(
  subjectKey: string,
  workspace: WorkspaceItem[],
  canSee: Visibility = userVisibility,
): Set<string> {
  const hidden = new Set<string>();
  const seen = new Set<string>();
  for (const item of workspace) {
    const target = canSee(subjectKey, item) ? seen : hidden;
    for (const s of shingles(`${item.title}\n${item.body}`)) target.add(s);
  }
  for (const s of seen) hidden.delete(s);
  return hidden;
}

export function findLeaks(
  statements: ObservedStatement[],
  items: Record<string, CitedItem>,
  hidden: Set<string>,
): Leak[] {
  const leaks: Leak[] = [];
  for (const s of statements) {
    for (const id of s.citations) {
      if (items[id]?.visible !== true) leaks.push({ statement: s.text, how: "citation", detail: id });
    }
    const shared = shingles(s.text).find((sh) => hidden.has(sh));
    if (shared !== undefined) leaks.push({ statement: s.text, how: "text", detail: shared });
  }
  return leaks;
}

export function shingles(text: string): string[] {
  const words = contentWords(text);
  const out: string[] = [];
  for (let i = 0; i + SHINGLE <= words.length; i++) out.push(words.slice(i, i + SHINGLE).join(" "));
  return out;
}
