/**
 * The keyword channel's ranking: Okapi BM25 over the viewer's collection, in SQL that PostgreSQL 15-18,
 * PGlite and Neon all run (full-text search only; no extension).
 *
 *   score(item) = sum over the query's terms t of  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
 *   idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
 *
 * - tf: the term's occurrences in the item, a title occurrence counting TITLE_WEIGHT, an author or body one 1.
 *   ts_rank_cd of a single term with normalisation 0 is the sum of its occurrences' weights, which is what
 *   `termFrequency` reads (weights D, C, B, A = 0.5, 0.5, 0.5, 1, doubled).
 * - dl: the item's length in bytes (title, author and the indexed part of the body: octet_length reads the
 *   stored size, never the text), avgdl its mean over the viewer's newest STATS_SAMPLE items.
 * - N and df(t): counted over the items the viewer may see (their own and those shared with them or their
 *   teams), never anyone else's, so the order of a result says nothing about items the viewer cannot see.
 *   They are read at query time through the access rule's two indexes, so they are current after every
 *   ingest, delete, share, unshare or change of team; the viewer's own item count is the one kept by the
 *   triggers on items (item_versions, drizzle/0025), committed with the writes and read in the search's
 *   snapshot, instead of counting the owner's items each time. df is counted exactly up to DF_EXACT_CAP; a
 *   term more common than that is estimated from its share of the sample (its idf is small either way). A
 *   term the sample already measures (SAMPLED_ENOUGH) or puts past COMMON_ESTIMATE, and the only scored
 *   term of a query (whose df changes every score alike, never the order), is estimated without counting:
 *   counting tests matches one by one, reading each item's tsvector (100-300 ms at 100,000 items for a
 *   common word or a phrase). When the sample holds every visible item, its counts are exact.
 *
 * Candidates: every visible item matching one of the rarest terms, taken from the rarest up while their
 * document frequencies add up to at most CANDIDATE_BUDGET (at least the rarest one), so a common word beside a
 * rare one costs nothing; the other terms still count in the score. When even the rarest term is more common
 * than that, or the query has one scored term, the newest CANDIDATE_BUDGET items matching it are ranked: the
 * cost stays bounded.
 */
import { and, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Db } from "./client";
import { ownedCount, ownedInTextIndex, sharedItems, visibleBranches } from "./item-rows";
import { type KeywordQuery, termAlternatives } from "./keyword-query";
import { items } from "./schema";

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** A title occurrence counts this many times an author or body one. */
export const TITLE_WEIGHT = 2;
/**
 * df is counted exactly up to this many items; past it, estimated from the sample. Counting a common term
 * to 5,000 took 65 ms of a query at 100,000 items under load (to 1,000: 19 ms); past CANDIDATE_BUDGET a
 * term never selects candidates, and its idf is small either way.
 */
export const DF_EXACT_CAP = 1000;
/** A term the sample estimates at this many matches or more is not counted (see the file's header). */
const COMMON_ESTIMATE = 2 * DF_EXACT_CAP;
/**
 * A term found this many times in the sample is estimated from it, not counted: within about a third of
 * its true df, which moves its idf by a few percent, while counting a phrase tests every item holding its
 * words (300 ms for two common words at 100,000 items under load).
 */
const SAMPLED_ENOUGH = 10;
/** avgdl, and the df of very common terms, come from the viewer's newest this many items. */
export const STATS_SAMPLE = 1000;
/**
 * How many matches the candidate terms may have together (see the file's header). Scoring a candidate
 * reads its tsvector: 4,000 candidates took 200-280 ms at 100,000 items (bench:search-scale), 4-7 times a
 * query that matches nothing; 1,000 keep a query of common words within reach of it.
 */
export const CANDIDATE_BUDGET = 1000;
/** Body characters the search column indexes (schema.ts items.search). */
const INDEXED_BODY_CHARS = 200_000;

/** A search's filters as conditions on items, and what the owner's indexes can do with them. */
export interface SearchFilters {
  conditions: (SQL | undefined)[];
  /** They keep a newest-first walk in an index's order (boundedScan). */
  ordered: boolean;
  /** The kinds they keep (none: every kind), which the text index answers for the viewer's own items. */
  kinds: readonly string[];
  /** A people filter is among them: the text index answers it for the viewer's own items too. */
  people: boolean;
}

/** What shapes a ranking, all of it from the viewer's items: a search's later pages reuse it as it was. */
export interface KeywordStats {
  /** N: the items the viewer may see. */
  documents: number;
  /** avgdl, in bytes. */
  averageLength: number;
  /** df of each of the query's terms, in order; -1 for a term with no lexeme (stop words only). */
  frequencies: number[];
}

/**
 * A search's keyword channel: the query's terms and a first page's statistics, counted once (and started
 * before the filters are known: item-search.ts).
 */
export interface KeywordChannel {
  query: KeywordQuery;
  statistics: () => Promise<KeywordStats>;
}

const tsquery = (text: string): SQL => sql`to_tsquery('english', ${text})`;

/** A tsquery matching any of `terms` (to_tsquery texts). */
export function anyTerm(terms: string[]): SQL {
  return sql`(${sql.join(terms.map(tsquery), sql` || `)})`;
}

/** The item's length in bytes as BM25 normalises it (dl). */
const itemLength = sql`(octet_length(coalesce(${items.title}, '')) + octet_length(coalesce(${items.author}, ''))
  + least(octet_length(${items.body}), ${INDEXED_BODY_CHARS}::int))::float8`;

/**
 * A row's keys for choosing the newest rows by (occurred_at, id) and its address (`tid`: `${items}.ctid` of
 * the table, `${items}.tid` of item-rows.ts sharedItems) for reading the chosen rows afterwards (a Tid
 * scan), so a sort of many rows never carries their tsvectors.
 */
const keyColumns = (tid: SQL) => sql`${items.occurredAt} as occurred_at, ${items.id} as id, ${tid} as tid`;

/** N, avgdl and each term's df over the items the viewer may see (one statement). */
export async function keywordStatistics(
  db: Db,
  subjectKey: string,
  query: KeywordQuery,
): Promise<KeywordStats> {
  const [owned] = visibleBranches(subjectKey);
  const shared = sharedItems(subjectKey);
  const newest = sql`order by ${items.occurredAt} desc, ${items.id} desc limit ${STATS_SAMPLE}::int`;
  // The sample is chosen by its rows' keys and read by their row addresses afterwards: sorting the shared
  // items with their tsvectors to find the newest took 6 ms more than sorting the keys (1,000 of them).
  // A term's matches among the viewer's own items, up to DF_EXACT_CAP, and among the items shared with
  // them, counted for every term in one pass (shared_df, read only when a count runs).
  const capped = (term: string, i: number) => sql`((select count(*) from (
      select 1 from ${items} where ${and(ownedInTextIndex(subjectKey), sql`${items.search} @@ ${tsquery(term)}`)} limit ${DF_EXACT_CAP}::int) m)
      + (select shared_df.df_${sql.raw(String(i))} from shared_df))`;
  // Each term's count reads an item's tsvector as readOnce copied it.
  const countEach = (prefix: string) =>
    query.terms.map(
      (term, i) =>
        sql`, count(*) filter (where t.search @@ ${tsquery(term)}) as ${sql.raw(`${prefix}_${i}`)}`,
    );
  // A sample of every item is exact. Otherwise the capped count runs only when the sample neither found the
  // term SAMPLED_ENOUGH times nor estimates it past COMMON_ESTIMATE (null: estimated); CASE evaluates its
  // subquery only in the branch taken. `n` is materialized: inlined, each mention of n.documents counted
  // the viewer's items again (seven counts for three terms, 2.8 s against 0.4 s at 100,000 items under load).
  // A query of one scored term (the others stop words) is ranked the same whatever its df (idf scales every
  // score alike, and its candidates are bounded either way: candidateTerms): it is estimated, not counted.
  const scoredTerms = sql.join(
    query.terms.map((term) => sql`(numnode(${tsquery(term)}) > 0)::int`),
    sql` + `,
  );
  const perTerm = query.terms.map((term, i) => {
    const n = sql.raw(String(i));
    return sql`, numnode(${tsquery(term)}) as nodes_${n}, s.sampled_${n},
      case when s.sample_size >= n.documents then s.sampled_${n}
        when s.sampled_${n} >= ${SAMPLED_ENOUGH}::int
          or n.documents * s.sampled_${n} >= ${COMMON_ESTIMATE}::int * s.sample_size
          or ${scoredTerms} = 1 then null
        else ${capped(term, i)} end as df_${n}`;
  });
  const result = await db.execute(sql`
    with newest as (
      select u.tid from (
        (select ${keyColumns(sql`${items}.ctid`)} from ${items} where ${owned} ${newest})
        union all
        (select ${keyColumns(sql`${items}.tid`)} from ${shared} ${newest})
      ) u order by occurred_at desc, id desc limit ${STATS_SAMPLE}::int
    ),
    sample as materialized (
      select ${items.search} as search, ${itemLength} as dl from ${items} where ctid = any(array(select tid from newest))
    ),
    s as (select count(*) as sample_size, avg(t.dl) as average_length ${sql.join(countEach("sampled"), sql``)}
      from (select dl, ${readOnce(sql`search`)} as search from sample offset 0) t),
    shared_df as materialized (select 1 ${sql.join(countEach("df"), sql``)}
      from (select ${readOnce(items.search)} as search from ${shared} offset 0) t),
    n as materialized (select ${ownedCount(subjectKey)}
      + (select count(*) from ${shared}) as documents)
    select n.documents, s.sample_size, s.average_length ${sql.join(perTerm, sql``)} from s, n`);
  const row = (result.rows[0] ?? {}) as Record<string, unknown>;
  const documents = Number(row.documents ?? 0);
  const sampleSize = Number(row.sample_size ?? 0);
  const frequencies = query.terms.map((_, i) => {
    if (Number(row[`nodes_${i}`]) === 0) return -1;
    const sampled = Number(row[`sampled_${i}`]);
    const estimate = sampleSize === 0 ? 0 : Math.round((documents * sampled) / sampleSize);
    if (row[`df_${i}`] === null) return Math.min(documents, Math.max(sampled, estimate));
    const counted = Number(row[`df_${i}`]);
    if (counted < DF_EXACT_CAP || sampleSize === 0) return counted;
    return Math.min(documents, Math.max(DF_EXACT_CAP, estimate));
  });
  // Rounded as a cursor carries it, so every page ranks with the very same number.
  const averageLength = Number(Math.max(1, Number(row.average_length ?? 1)).toPrecision(9));
  return { documents, averageLength, frequencies };
}

/** BM25's inverse document frequency (the variant that is never negative). */
export function inverseDocumentFrequency(documents: number, frequency: number): number {
  return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
}

/**
 * The terms whose matches are the candidates (see the file's header), as indexes into query.terms; `bounded`
 * when their matches are more than CANDIDATE_BUDGET, or when the query has one scored term (its df may be
 * an estimate: keywordStatistics; its newest CANDIDATE_BUDGET matches are every one when it has fewer);
 * `matches` how many they are (df, summed).
 */
export function candidateTerms(stats: KeywordStats): { terms: number[]; bounded: boolean; matches: number } {
  const usable = stats.frequencies
    .map((df, i) => ({ df, i }))
    .filter((t) => t.df >= 0)
    .sort((a, b) => a.df - b.df || a.i - b.i);
  const terms: number[] = [];
  let total = 0;
  for (const t of usable) {
    if (terms.length > 0 && total + t.df > CANDIDATE_BUDGET) break;
    terms.push(t.i);
    total += t.df;
  }
  return { terms, bounded: total > CANDIDATE_BUDGET || usable.length === 1, matches: total };
}

/**
 * How the newest CANDIDATE_BUDGET of `matches` are found among `documents` items: by walking the viewer's
 * items newest first and testing each ("walk": about CANDIDATE_BUDGET * documents / matches tests, each
 * reading an item's tsvector, but over recent, adjacent rows), or by reading every match through the text
 * index and keeping the newest ("index": `matches` rows, scattered). The walk wins for a term on more than
 * about sqrt(CANDIDATE_BUDGET / documents) of the items (10% at 100,000), where the two read about as many
 * rows: the word on 25% of 100,000 items took 110 ms walked and 700 ms through the index; one on 6% took
 * 230 ms walked and 120 ms through the index (bench:search-scale, through the API).
 *
 * `ordered`: the filters keep the walk in an index's order, so it reads only rows that pass them: a time
 * window (the owner's (occurred_at, id) index, walked within the window) and one kind (the owner's (kind,
 * occurred_at, id) index). The walk then reads at most the rows passing the filters, and about as many as
 * unfiltered for a term as common among them as among all items: the word on 25% of 100,000 items within a
 * year took 10 ms walked and 42 ms through the index, among the emails 19 ms against 39. A person filter
 * (or several kinds) has no such order: the walk would test rows that fail it, so always the index.
 */
export function boundedScan(matches: number, documents: number, ordered: boolean): "walk" | "index" {
  if (!ordered) return "index";
  return matches * matches >= CANDIDATE_BUDGET * documents ? "walk" : "index";
}

/**
 * (id, occurred_at, score, coverage) of the visible items passing `conditions` that match a candidate term
 * and no excluded one, scored by BM25 with `stats`; coverage is the share of the query's idf the item
 * matches (1: every scored term). Empty when no term has a lexeme.
 */
export function keywordRanked(
  subjectKey: string,
  query: KeywordQuery,
  stats: KeywordStats,
  filters: SearchFilters,
): SQL {
  const { terms: chosen, bounded, matches } = candidateTerms(stats);
  if (chosen.length === 0) {
    return sql`select null::uuid as id, null::timestamptz as occurred_at, 0::float8 as score, 0::float8 as coverage where false`;
  }
  const where = [
    ...filters.conditions,
    sql`${items.search} @@ ${anyTerm(chosen.map((i) => query.terms[i]!))}`,
    query.excluded.length > 0 ? sql`not (${items.search} @@ ${anyTerm(query.excluded)})` : undefined,
  ];
  const k1 = BM25_K1;
  const norm = sql`(${1 - BM25_B}::float8 + ${BM25_B / stats.averageLength}::float8 * c.dl)`;
  // Each scored term's tf and match are read once per candidate (a fenced subquery, so the planner does not
  // put the expressions back where they are used): the score names tf twice. They read the candidate's
  // tsvector as readOnce copied it.
  const scored = query.terms.flatMap((term, i) => ((stats.frequencies[i] ?? -1) < 0 ? [] : [{ term, i }]));
  const perTerm = scored.map(({ term, i }) => {
    const n = sql.raw(String(i));
    return sql`, ${termFrequency(sql`m.search`, term)} as tf_${n}, (m.search @@ ${tsquery(term)})::int as matched_${n}`;
  });
  const idfs = scored.map(({ i }) => inverseDocumentFrequency(stats.documents, stats.frequencies[i]!));
  const parts = scored.map(({ i }, j) => {
    const tf = sql.raw(`c.tf_${i}`);
    return sql`${idfs[j]}::float8 * ${tf} * ${k1 + 1}::float8 / (${tf} + ${k1}::float8 * ${norm})`;
  });
  const allIdf = idfs.reduce((a, b) => a + b, 0);
  const covered = scored.map(({ i }, j) => sql`${idfs[j]! / allIdf}::float8 * ${sql.raw(`c.matched_${i}`)}`);
  // Coordination: the share of the scored terms an item matches scales its score, so an item that matches
  // every word of "Bluefin discovery" stays above a short one that repeats only the rarer word.
  const matched = scored.map(({ i }) => sql.raw(`c.matched_${i}`));
  return sql`
    select c.id, c.occurred_at,
           (${sql.join(parts, sql` + `)}) * (${sql.join(matched, sql` + `)})::float8 / ${matched.length}::float8 as score,
           (${sql.join(covered, sql` + `)}) as coverage
    from (select m.id, m.occurred_at, m.dl ${sql.join(perTerm, sql``)}
      from (select u.id, u.occurred_at, u.dl, ${readOnce(sql`u.search`)} as search
        from (${candidateRows(subjectKey, where, bounded ? boundedScan(matches, stats.documents, filters.ordered) : null, filters.kinds)}) u
        offset 0) m
      offset 0) c`;
}

/**
 * A tsvector column's value read from TOAST once, for an expression that names it several times: a
 * candidate's tsvector is named by each term's tf and match, and each function reading a stored value
 * fetches it from TOAST again (about 4 µs each). setweight with no lexemes to reweigh is a plain copy.
 * Evaluate it in a fenced subquery (OFFSET 0), or the planner puts it back into every use.
 */
function readOnce(search: SQLWrapper): SQL {
  return sql`setweight(${search}, 'A', '{}'::text[])`;
}

/**
 * The weighted occurrences of a term in a tsvector (see the file's header). ts_rank_cd of a term whose
 * alternatives include phrases (to_tsquery makes one of each hyphenated word) walks every occurrence of
 * the phrases' lexemes in the item: 28 µs an item for "pipeline" and its variants against 4 µs for the
 * word alone. An item that matches none of those phrases ranks the same on the plain words alone (a
 * phrase it lacks never closes a cover), so only an item that matches one is ranked on the whole term.
 */
export function termFrequency(search: SQL, term: string): SQL {
  const rank = (text: string) =>
    sql`(2 * ts_rank_cd('{0.5, 0.5, 0.5, 1}'::float4[], ${search}, ${tsquery(text)}, 0))::float8`;
  const { words, others } = termAlternatives(term);
  if (words === null || others === null) return rank(term);
  return sql`(case when ${search} @@ ${tsquery(others)} then ${rank(term)} else ${rank(words)} end)`;
}

/**
 * (id, occurred_at, search, dl) of the visible rows passing `conditions`: all of them, or with a `bounded`
 * scan (boundedScan) the newest CANDIDATE_BUDGET of them. Unbounded, and bounded through the index, each
 * branch is fenced by OFFSET 0 so that no LIMIT reaches its scan: with one, the planner walks the viewer's
 * items newest first however rare the matches. Walking, each branch takes its newest rows itself. The
 * shared branch is also fenced inside (item-search.ts visibleRows).
 *
 * Bounded through the index, every match's keys are sorted and only the newest CANDIDATE_BUDGET rows are
 * read again by address for their tsvectors and lengths (keyColumns): a word on 6% of 100,000 items took
 * 19 ms instead of 30 ms in `psql`, where the sort carried each of its 5,959 matches' tsvectors.
 */
function candidateRows(
  subjectKey: string,
  conditions: (SQL | undefined)[],
  bounded: "walk" | "index" | null,
  kinds: readonly string[],
): SQL {
  const [owned] = visibleBranches(subjectKey);
  const columns = sql`${items.id} as id, ${items.occurredAt} as occurred_at, ${items.search} as search, ${itemLength} as dl`;
  const newest = sql`order by occurred_at desc, id desc limit ${CANDIDATE_BUDGET}::int`;
  if (bounded === "index") {
    const keys = sql`
      (select ${keyColumns(sql`${items}.ctid`)} from ${items} where ${and(ownedInTextIndex(subjectKey, kinds), ...conditions)} offset 0)
      union all
      (select ${keyColumns(sql`${items}.tid`)} from ${sharedItems(subjectKey)} where ${and(sql`true`, ...conditions)} offset 0)`;
    return sql`select ${columns} from ${items} where ctid = any(array(select tid from (${keys}) u ${newest}))`;
  }
  const walk = bounded === "walk";
  const each = walk ? newest : sql`offset 0`;
  const matches = sql`
      (select ${columns} from ${items} where ${and(walk ? owned : ownedInTextIndex(subjectKey, kinds), ...conditions)} ${each})
      union all
      (select ${columns} from ${sharedItems(subjectKey)} where ${and(sql`true`, ...conditions)} ${each})`;
  return bounded ? sql`select * from (${matches}) u ${newest}` : sql`select * from (${matches}) u`;
}
