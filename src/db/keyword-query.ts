/**
 * The keyword channel's queries, as to_tsquery text: every word of the search must match (strict), or, when
 * that finds too little, any of them (loose, ranked by how many and how close). Each word also matches its
 * hyphen and compound variants, so "cutover", "cut-over" and "cut over" find one another:
 *   - a hyphenated word also matches its parts joined, or apart in a row ("cut-over": also "cutover",
 *     "cut over");
 *   - two adjacent words also match the two joined or hyphenated ("cut over": also "cutover", "cut-over");
 *   - a long word also matches its hyphenated splits ("cutover": also "cut-over"). The parser indexes a
 *     hyphenated word as one compound lexeme besides its parts, so a split only matches the text that has
 *     exactly that compound: "cut-ov" never matches an item that merely says "cut".
 * Stemming and stop words stay Postgres's (to_tsquery('english', …) applies them to every alternative).
 *
 * A query written in websearch syntax (quotes for a phrase, -word, OR) is taken as written instead.
 */

/** Words read from one query; a longer query is cut (its later words would barely change the ranking). */
export const MAX_QUERY_WORDS = 16;
/** Splits are tried in words of this many characters (both parts at least SPLIT_MIN_PART long). */
const SPLIT_MIN_WORD = 6;
const SPLIT_MAX_WORD = 20;
const SPLIT_MIN_PART = 3;

export interface KeywordQuery {
  /** to_tsquery('english', strict): every word (or one of its variants). */
  strict: string;
  /** to_tsquery('english', loose): any word; the ranked fallback. Null for websearch syntax (no fallback). */
  loose: string | null;
  /** The query used websearch syntax: strict is websearch_to_tsquery's text, not to_tsquery's. */
  websearch: boolean;
}

const WORD = /[\p{L}\p{N}]+(?:[.-][\p{L}\p{N}]+)*/gu;
const WEBSEARCH_SYNTAX = /["]|(^|\s)-\S|\sor\s/i;

/** Null when the query has no word at all (punctuation only). */
export function keywordQuery(q: string): KeywordQuery | null {
  const words = (
    q
      .normalize("NFC")
      .replace(/[_'’]+/g, " ")
      .match(WORD) ?? []
  )
    .slice(0, MAX_QUERY_WORDS)
    .map((w) => w.toLowerCase());
  if (WEBSEARCH_SYNTAX.test(q)) {
    // Written precisely (a phrase, an exclusion): no any-word fallback, which would ignore both.
    return { strict: q, loose: null, websearch: true };
  }
  if (words.length === 0) return null;
  const groups = words.map((word) => new Set<string>([word]));
  words.forEach((word, i) => {
    const group = groups[i]!;
    if (word.includes("-")) {
      group.add(word.replaceAll("-", ""));
      group.add(word.split("-").join(" <-> "));
    } else if (/^\p{L}+$/u.test(word) && word.length >= SPLIT_MIN_WORD && word.length <= SPLIT_MAX_WORD) {
      for (let at = SPLIT_MIN_PART; at <= word.length - SPLIT_MIN_PART; at++) {
        group.add(`${word.slice(0, at)}-${word.slice(at)}`);
      }
    }
    const next = words[i + 1];
    if (next && !word.includes("-") && !next.includes("-") && !word.includes(".") && !next.includes(".")) {
      // Either word is satisfied by the compound of the two.
      for (const compound of [`${word}${next}`, `${word}-${next}`]) {
        group.add(compound);
        groups[i + 1]!.add(compound);
      }
    }
  });
  const alternatives = groups.map((g) => `(${[...g].join(" | ")})`);
  return { strict: alternatives.join(" & "), loose: alternatives.join(" | "), websearch: false };
}
