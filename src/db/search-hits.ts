/**
 * A search hit as the API answers it: its item's summary, its rank and a snippet, cut either around the
 * query's words (a headline) or from the start of the text.
 */
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { ItemKind } from "../domain/item-schema";
import type { SearchHit } from "../domain/items";
import { toDate, toSummary } from "./item-rows";
import { anyTerm } from "./keyword-ranking";

/** A snippet's length at most, in characters. */
export const SNIPPET_CHARS = 240;
const HEADLINE_OPTIONS = 'MaxFragments=1, MaxWords=35, MinWords=15, StartSel="", StopSel=""';
/**
 * ts_headline parses all the text it is given (about 0.13 µs a character here), and the best-ranked hits
 * tend to be long documents: 21 of them at 20,000 characters took 55 ms. So it gets this much of the body,
 * starting HEADLINE_LEAD_CHARS before the first occurrence of one of the query's lexemes in the body's
 * first HEADLINE_PROBE_CHARS (a case-insensitive substring search; stems are mostly prefixes of the words
 * they come from), else the body's beginning.
 */
const HEADLINE_SOURCE_CHARS = 2_000;
const HEADLINE_LEAD_CHARS = 300;
const HEADLINE_PROBE_CHARS = 50_000;

/** The passage of `body` around any of the query's `terms` (to_tsquery texts), as SQL. */
export function headline(body: SQLWrapper, terms: string[]): SQL {
  const loose = anyTerm(terms);
  return sql`ts_headline('english', ${headlineSource(body, loose)}, ${loose}, ${HEADLINE_OPTIONS})`;
}

/**
 * The part of `body` ts_headline reads (see HEADLINE_SOURCE_CHARS). querytree() lists the query's positive
 * lexemes, quoted; lexemes under three letters are too common to place the window. They are looked for
 * together, one case-insensitive pattern of alternatives (each character other than a letter or digit
 * escaped), in one pass over the text: a lowercase copy searched once per lexeme took 2 ms an item for a
 * word with its compound variants. The pattern does not depend on the row, so it is built once.
 */
function headlineSource(body: SQLWrapper, tsquery: SQL): SQL {
  const lexemes = sql`(select string_agg(regexp_replace(m[1], '([^[:alnum:]])', '\\\\\\1', 'g'), '|')
    from regexp_matches(querytree(${tsquery}), '''((?:[^'']|'''')+)''', 'g') as m where length(m[1]) >= 3)`;
  const firstMatch = sql`nullif(regexp_instr(left(${body}, ${HEADLINE_PROBE_CHARS}), ${lexemes}, 1, 1, 0, 'i'), 0)`;
  return sql`substr(${body}, greatest(1, coalesce(${firstMatch}, 1) - ${HEADLINE_LEAD_CHARS}), ${HEADLINE_SOURCE_CHARS})`;
}

/** A snippet on one line, at most SNIPPET_CHARS long. */
export function boundSnippet(text: string): string {
  const clean = text.replace(/\s+/g, " ").trim();
  return clean.length > SNIPPET_CHARS ? `${clean.slice(0, SNIPPET_CHARS - 1)}…` : clean;
}

/** A row of a ranked or fused search (its item's columns, score and snippet) as a hit. */
export function rankedHit(row: Record<string, unknown>): SearchHit {
  return {
    ...toSummary({
      id: String(row.id),
      kind: row.kind as ItemKind,
      source: String(row.source),
      externalId: String(row.external_id),
      title: row.title === null ? null : String(row.title),
      author: row.author === null ? null : String(row.author),
      occurredAt: toDate(row.occurred_at as Date | string),
    }),
    rank: Number(row.score),
    snippet: boundSnippet(String(row.snippet ?? "")),
  };
}
