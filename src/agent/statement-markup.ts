/**
 * A statement is plain text about the subject. A model that copies a tool result into its memory carries
 * the prompt's own markup along: the untrusted-data wrapper (<untrusted>, or its defused form ‹untrusted>),
 * the wire format's tags (<item>, <statement>, <memory>, ...), or the run's refs outside the citations
 * ("ref : E1", "see E12"), which mean nothing once the run is over. Such a statement is dropped by the
 * deterministic checks, with the reason, before the judge sees the draft.
 */
import type { RefTable } from "./refs";

const TAG = /[<‹]\s*\/?\s*(untrusted|memory|previous_memory|changes_since_previous|item|statement)\b[^>]*>?/i;
/** A tool result's `ref` field, copied: "ref: E1", "ref : E1", '"ref": "E1"'. */
const REF_FIELD = /\bref"?\s*:\s*"?([A-Za-z]\d{1,6})\b/i;
/**
 * A word written as refs are (E12, M7: upper case); only a ref this run handed out counts, so "Q3" or a
 * version such as "v2" stays text.
 */
const REF_WORD = /\b[A-Z]\d{1,6}\b/g;

/** Why the statement's text is not plain text (the first problem found), or null. */
export function markupProblem(text: string, refs: RefTable): string | null {
  const tag = TAG.exec(text);
  if (tag) return `carries the prompt's markup (${tag[0].slice(0, 40)}); a statement is plain text`;
  const field = REF_FIELD.exec(text);
  if (field) return `copies a tool result's ref field ("${field[0]}"); a statement is plain text`;
  for (const word of text.match(REF_WORD) ?? []) {
    if (refs.resolve(word)) {
      return `names the run's ref ${word} in its text; refs go only in the citations at the end`;
    }
  }
  return null;
}
