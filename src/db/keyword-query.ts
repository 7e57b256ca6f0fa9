/**
 * The keyword channel's query, parsed: a list of terms, each a to_tsquery('english', …) text, that search
 * weighs one by one (keyword-ranking.ts: BM25), and the terms an item must not match. A question is read as
 * words: "what did Maria say about the budget or the timeline" is the terms maria, say, budget, timeline
 * (stop words such as what, did, or, and, the drop out in to_tsquery), none of them required.
 *
 * Operators, written on purpose:
 *   - "a quoted phrase" is one term: its words in a row;
 *   - -word (or -"a phrase") right after a space or at the start: items matching it are left out;
 *   - OR in capitals between two terms joins them into one term (either matches). A lowercase "or", like
 *     "and", is a word (a stop word).
 *
 * Each plain word also matches its hyphen and compound variants, so "cutover", "cut-over" and "cut over"
 * find one another:
 *   - a hyphenated word also matches its parts joined, or apart in a row ("cut-over": also "cutover",
 *     "cut over");
 *   - two adjacent words also match the two joined or hyphenated ("cut over": also "cutover", "cut-over");
 *   - a long word also matches its hyphenated splits ("cutover": also "cut-over"). The parser indexes a
 *     hyphenated word as one compound lexeme besides its parts, so a split only matches the text that has
 *     exactly that compound: "cut-ov" never matches an item that merely says "cut".
 * Stemming and stop words stay Postgres's (to_tsquery('english', …) applies them to every alternative).
 */

/** Terms read from one query; a longer query is cut (its later words would barely change the ranking). */
export const MAX_QUERY_WORDS = 16;
/** Splits are tried in words of this many characters (both parts at least SPLIT_MIN_PART long). */
const SPLIT_MIN_WORD = 6;
const SPLIT_MAX_WORD = 20;
const SPLIT_MIN_PART = 3;

export interface KeywordQuery {
  /** One to_tsquery('english', …) text per term, in the query's order, without repeats. */
  terms: string[];
  /** to_tsquery('english', …) texts an item must not match. */
  excluded: string[];
}

const WORD = /[\p{L}\p{N}]+(?:[.-][\p{L}\p{N}]+)*/gu;
/** A phrase, an exclusion, the OR operator, or anything else up to the next space or quote. */
const TOKEN = /(-?)"([^"]*)"?|(^|\s)(-)(?=[^\s"])|(\S+?)(?=\s|"|$)|\s+/gu;

type Token =
  | { kind: "words"; words: string[]; negated: boolean }
  | { kind: "phrase"; words: string[]; negated: boolean }
  | { kind: "or" };

/** Words that open a question (or a request phrased as one). */
const QUESTION_OPENERS = new Set([
  "who",
  "whom",
  "whose",
  "what",
  "when",
  "where",
  "which",
  "why",
  "how",
  "did",
  "do",
  "does",
  "is",
  "are",
  "was",
  "were",
  "can",
  "could",
  "should",
  "would",
  "will",
  "has",
  "have",
  "had",
]);

/**
 * A query written as a question: it ends with a question mark or opens with a question word ("when does
 * the new ledger go live", "did Maria adopt a pet?"). Hybrid fusion weighs the vector channel less for
 * these (item-search.ts QUESTION_VECTOR_WEIGHT).
 */
export function isQuestion(q: string): boolean {
  const text = q.trim();
  if (text.endsWith("?")) return true;
  const first = text.match(/^[\p{L}']+/u)?.[0]?.toLowerCase();
  return first !== undefined && QUESTION_OPENERS.has(first);
}

/** Null when the query has no term at all (punctuation only). */
export function keywordQuery(q: string): KeywordQuery | null {
  const tokens = tokenize(q.normalize("NFC"));
  const terms: string[] = [];
  const excluded: string[] = [];
  // Runs of plain words get their compound variants across neighbours; a phrase, OR or an exclusion ends a run.
  let run: string[] = [];
  let joinNext = false;
  const addTerm = (term: string) => {
    if (joinNext && terms.length > 0) terms[terms.length - 1] = `${terms.at(-1)} | ${term}`;
    else terms.push(term);
    joinNext = false;
  };
  const flush = () => {
    const groups = wordGroups(run);
    run = [];
    // OR joins the run's first word to the term before it (addTerm); later words are terms of their own.
    for (const group of groups) addTerm(group);
  };
  for (const token of tokens) {
    if (token.kind === "or") {
      flush();
      joinNext = terms.length > 0;
      continue;
    }
    if (token.negated) {
      flush();
      joinNext = false;
      const text = token.kind === "phrase" ? phrase(token.words) : wordGroups(token.words).join(" & ");
      if (text) excluded.push(text);
      continue;
    }
    if (token.kind === "phrase") {
      flush();
      const text = phrase(token.words);
      if (text) addTerm(text.includes(" ") ? `(${text})` : text);
      continue;
    }
    run.push(...token.words);
  }
  flush();
  const unique = [...new Set(terms)].slice(0, MAX_QUERY_WORDS);
  if (unique.length === 0) return null;
  return { terms: unique, excluded: [...new Set(excluded)] };
}

/**
 * A term's alternatives (its " | " parts, a parenthesised OR opened) in two to_tsquery texts: the plain
 * words, each one lexeme, and the rest (hyphenated words, phrases), which to_tsquery turns into phrases of
 * lexemes; null for an empty side. "(pipeline | pipe-line | pipelinelist)" is words "pipeline |
 * pipelinelist", others "pipe-line".
 */
export function termAlternatives(term: string): { words: string | null; others: string | null } {
  const words: string[] = [];
  const others: string[] = [];
  for (const alternative of orParts(term)) (PLAIN_WORD.test(alternative) ? words : others).push(alternative);
  const join = (parts: string[]) => (parts.length > 0 ? parts.join(" | ") : null);
  return { words: join(words), others: join(others) };
}

const PLAIN_WORD = /^[\p{L}\p{N}]+$/u;

/** The " | " parts of a to_tsquery text at its top level, each parenthesised OR opened in turn. */
function orParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (depth === 0 && text.startsWith(" | ", i)) {
      parts.push(text.slice(start, i));
      start = i + 3;
    }
  }
  parts.push(text.slice(start));
  return parts.flatMap((part) => {
    const inner = enclosed(part);
    const opened = inner === null ? [] : orParts(inner);
    return opened.length > 1 ? opened : [part];
  });
}

/** The text inside `part`'s parentheses when one pair encloses all of it, else null. */
function enclosed(part: string): string | null {
  if (!part.startsWith("(") || !part.endsWith(")")) return null;
  let depth = 0;
  for (let i = 0; i < part.length - 1; i++) {
    if (part[i] === "(") depth++;
    else if (part[i] === ")") depth--;
    if (depth === 0) return null;
  }
  return part.slice(1, -1);
}

function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let negateNext = false;
  for (const m of q.matchAll(TOKEN)) {
    const [, quoteMinus, quoted, , minus, bare] = m;
    if (quoted !== undefined) {
      tokens.push({ kind: "phrase", words: wordsOf(quoted), negated: negateNext || quoteMinus === "-" });
      negateNext = false;
    } else if (minus) {
      negateNext = true;
    } else if (bare !== undefined) {
      if (bare === "OR" && !negateNext) tokens.push({ kind: "or" });
      else tokens.push({ kind: "words", words: wordsOf(bare), negated: negateNext });
      negateNext = false;
    }
  }
  return tokens.filter((t) => t.kind === "or" || t.words.length > 0);
}

function wordsOf(text: string): string[] {
  return (text.replace(/[_'’]+/g, " ").match(WORD) ?? []).map((w) => w.toLowerCase());
}

function phrase(words: string[]): string {
  return words.slice(0, MAX_QUERY_WORDS).join(" <-> ");
}

/** One to_tsquery text per word, with its variants (see the file's header). */
function wordGroups(words: string[]): string[] {
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
  return groups.map((g) => (g.size === 1 ? [...g][0]! : `(${[...g].join(" | ")})`));
}
