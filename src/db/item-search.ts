/**
 * Search over what a viewer may see. With a query: the keyword channel (keyword-query.ts, against the
 * generated `search` column: title weighted A, author B, body C, ranked by BM25) and, for hybrid and
 * semantic searches, the vector channel (rankedSearch below, fused-search.ts). Without one: newest first. Keyset
 * pagination on (score, occurred_at, id), so pages never skip or repeat rows.
 *
 * Every query reads the two branches of the access rule (item-rows.ts visibleBranches) separately, newest
 * first and limited, and merges them: the viewer's own items through (owner_id, occurred_at, id), items
 * shared with them through the shared_with index. So a page costs what the viewer's own data costs, however
 * many other users the table holds (one index over everyone's items, walked backwards, would step over
 * every other user's recent rows).
 *
 * The keyword channel ranks every match by BM25 over the viewer's own collection (keyword-ranking.ts); the
 * first page counts the statistics and its cursor carries them, so later pages rank with the same numbers
 * and never skip or repeat a row.
 */
import { and, desc, gte, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import { type PgSelect, unionAll } from "drizzle-orm/pg-core";
import { type SearchHit, type SearchPage, type SearchQuery, whileSearching } from "../domain/items";
import { PAGE_LIMIT } from "../domain/pages";
import type { FusionWeights } from "../domain/search-fusion";
import { type Db, NO_JIT, runWithDeadline } from "./client";
import { hybridSearch, semanticSearch } from "./fused-search";
import { storedKeys } from "./item-people-writes";
import { summaryColumns, toSummary, visibleBranches } from "./item-rows";
import { isQuestion, keywordQuery } from "./keyword-query";
import { type KeywordChannel, keywordRanked, keywordStatistics, type SearchFilters } from "./keyword-ranking";
import { items } from "./schema";
import { decodeCursor, encodeCursor, rankedAfter } from "./search-cursor";
import { boundSnippet, headline, rankedHit, SNIPPET_CHARS } from "./search-hits";

/**
 * Hybrid search's weight of the vector channel (domain/search-fusion.ts) when the query's words found an
 * item holding all of them. The keyword channel then leads, its BM25 scores being the better calibrated (a
 * strong match stays on top); the vector channel reorders close keyword scores and brings in what keywords
 * miss, above weak keyword matches. The less of the query the best keyword match covers, the more the
 * weight rises toward 1 (FusionWeights.uncovered): a paraphrase's keyword matches are incidental words.
 */
export const VECTOR_WEIGHT = 0.25;
/**
 * The vector channel's weight for a query written as a question (keyword-query.ts isQuestion). A question
 * names its subject in a few content words among framing words (who, did, say, about, ...): BM25 drops the
 * framing and weighs the content words by rarity, while the query's embedding carries the framing too and
 * sits nearer to every conversational item, so the vector channel is a weaker judge of a question than of a
 * topical query and only breaks near-ties of the keyword channel (docs/search-ranking.md, the benchmark).
 * It does not rise with what the words leave uncovered: a question's framing words are never covered.
 */
export const QUESTION_VECTOR_WEIGHT = 0.1;
/**
 * Joins an item's author and participants in `items_people(author, participants)`, the expression the
 * trigram index `items_people_trgm_idx` covers (see drizzle/0007). A name without it matches the joined
 * text exactly when it matches the author or one participant.
 */
const PEOPLE_SEPARATOR = "\n";

export async function searchItems(db: Db, subjectKey: string, query: SearchQuery): Promise<SearchPage> {
  const limit = clampLimit(query.limit);
  const q = query.q?.trim() || undefined;
  const mode = query.mode ?? "keyword";
  const keyword = q && mode !== "semantic" ? keywordQuery(q) : null;
  // A first page's keyword statistics need no filter: they are counted while a people filter is still
  // being resolved (query.involving). Later pages carry them in their cursor.
  const firstStats =
    keyword && !query.cursor ? whileSearching(keywordStatistics(db, subjectKey, keyword)) : null;
  const involving = query.involving ? await query.involving : undefined;
  const people = involving ? involving.people : (query.people ?? []);
  const byPeople = Boolean(people.length || involving?.identifiers.length);
  const filters: (SQL | undefined)[] = [];
  if (query.kinds?.length) filters.push(inArray(items.kind, query.kinds));
  if (query.since) filters.push(gte(items.occurredAt, query.since));
  if (query.until) filters.push(lt(items.occurredAt, query.until));
  if (byPeople) filters.push(or(...people.map(involves), namesAnyOf(involving?.identifiers ?? [])));
  if (!q) return newestFirst(db, subjectKey, filters, limit, query.cursor);
  // A time window and one kind keep a newest-first walk in an index's order; people and several kinds do
  // not (keyword-ranking.ts boundedScan).
  const ordered = !byPeople && (query.kinds?.length ?? 0) <= 1;
  const kinds = query.kinds ?? [];
  const searchFilters = { conditions: filters, ordered, kinds, people: byPeople };
  return rankedSearch(db, subjectKey, searchFilters, limit, query.cursor, {
    keyword: keyword && {
      query: keyword,
      statistics: () => firstStats ?? keywordStatistics(db, subjectKey, keyword),
    },
    vector: mode === "keyword" ? undefined : query.embedding,
    weights: isQuestion(q)
      ? { base: QUESTION_VECTOR_WEIGHT, uncovered: 0 }
      : { base: VECTOR_WEIGHT, uncovered: 1 - VECTOR_WEIGHT },
  });
}

const candidateColumns = { ...summaryColumns, body: items.body };

/**
 * The rows passing `conditions` that the viewer may see, each access branch read newest first (at most
 * `newest` of each when given), as one union; the caller orders and limits the merge.
 */
function visibleRows(db: Db, subjectKey: string, conditions: (SQL | undefined)[], newest?: number) {
  const [owned, shared] = visibleBranches(subjectKey);
  // Fenced by OFFSET 0, the shared branch finds its rows by the shared_with index alone and checks the
  // filters on them. Unfenced, the planner may AND that index with a filter's index (text, people) over
  // every user's items: 20-70 ms for a common word or name at 400,000 rows, to find a few hundred shared
  // rows. Fenced, the cost follows the rows shared with the viewer (about 4-8 ms for 1,000).
  const fence = sql`0` as unknown as number; // drizzle leaves out a literal OFFSET 0
  const sharedRows = db.select().from(items).where(shared).offset(fence).as("items");
  const newestOf = <Q extends PgSelect>(rows: Q) =>
    newest === undefined ? rows : rows.orderBy(desc(items.occurredAt), desc(items.id)).limit(newest);
  return unionAll(
    newestOf(
      db
        .select(candidateColumns)
        .from(items)
        .where(and(owned, ...conditions))
        .$dynamic(),
    ),
    newestOf(
      db
        .select(candidateColumns)
        .from(sharedRows)
        .where(and(...conditions))
        .$dynamic(),
    ),
  );
}

/**
 * Matches of `q`, best first. The keyword channel (keyword-query.ts, keyword-ranking.ts) ranks every
 * visible match of the query's rarer terms by BM25, with statistics read from the viewer's items first (or
 * carried by the cursor). The vector channel (item-chunk-search.ts vectorSearchQuery, same access rule and
 * filters) finds the items whose best current chunk is nearest to the query's embedding.
 *
 * - keyword: ordered by BM25 score, then newest first (keywordSearch below).
 * - hybrid: both channels side by side, fused by score; semantic: the vector channel alone (fused-search.ts).
 *   A query that could not be embedded (the embedding resolves to undefined) is answered by keyword.
 */
async function rankedSearch(
  db: Db,
  subjectKey: string,
  filters: SearchFilters,
  limit: number,
  cursorText: string | undefined,
  channels: { keyword: KeywordChannel | null; vector: SearchQuery["embedding"]; weights: FusionWeights },
): Promise<SearchPage> {
  const { keyword, vector } = channels;
  const keywordOnly = () => keywordSearch(db, subjectKey, keyword, filters, limit, cursorText);
  if (!vector) return keywordOnly();
  if (!keyword) {
    const embedding = await vector;
    return embedding ? semanticSearch(db, subjectKey, embedding, filters, limit, cursorText) : keywordOnly();
  }
  const fused = { keyword, vector };
  return (
    (await hybridSearch(db, subjectKey, fused, channels.weights, filters, limit, cursorText)) ?? keywordOnly()
  );
}

/** Keyword only: every match ranked by BM25 (keyword-ranking.ts), best first, ties newest first. */
async function keywordSearch(
  db: Db,
  subjectKey: string,
  keyword: KeywordChannel | null,
  filters: SearchFilters,
  limit: number,
  cursorText: string | undefined,
): Promise<SearchPage> {
  const cursor = cursorText ? decodeCursor(cursorText, true) : undefined;
  if (!keyword) return { items: [], nextCursor: null };
  const stats = cursor?.stats ?? (await keyword.statistics());
  const after = rankedAfter(sql`(c.score, c.occurred_at, c.id)`, cursor && { ...cursor, score: cursor.rank });
  // The page is cut from the candidates' own columns before the items are read for their columns and
  // snippets: ordered by the items' columns, every candidate (up to CANDIDATE_BUDGET) was read by primary key.
  const rows = await runWithDeadline(
    db,
    sql`
    with c as (${keywordRanked(subjectKey, keyword.query, stats, filters)}),
    page as (select * from c ${after} order by c.score desc, c.occurred_at desc, c.id desc limit ${limit + 1}::int)
    select i.id, i.kind, i.source, i.external_id, i.title, i.author, i.occurred_at, c.score,
      ${headline(sql`i.body`, keyword.query.terms)} as snippet
    from page c join ${items} i on i.id = c.id
    order by c.score desc, c.occurred_at desc, c.id desc`,
    [NO_JIT],
  );
  const page = rows.slice(0, limit).map(rankedHit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? encodeCursor({ rank: last.rank, occurredAt: last.occurredAt, id: last.id, stats })
      : null;
  return { items: page, nextCursor };
}

/** Everything that passes the filters, newest first; the snippet is cut from the page's rows only. */
async function newestFirst(
  db: Db,
  subjectKey: string,
  filters: (SQL | undefined)[],
  limit: number,
  cursorText: string | undefined,
): Promise<SearchPage> {
  const cursor = cursorText ? decodeCursor(cursorText, false) : undefined;
  const conditions = [...filters];
  if (cursor) {
    conditions.push(
      sql`(${items.occurredAt}, ${items.id}) < (${cursor.occurredAt.toISOString()}::timestamptz, ${cursor.id}::uuid)`,
    );
  }
  const m = visibleRows(db, subjectKey, conditions, limit + 1).as("m");
  const rows = await db
    .select({
      id: m.id,
      kind: m.kind,
      source: m.source,
      externalId: m.externalId,
      title: m.title,
      author: m.author,
      occurredAt: m.occurredAt,
      snippet: sql<string>`left(${m.body}, ${SNIPPET_CHARS})`,
    })
    .from(m)
    .orderBy(desc(m.occurredAt), desc(m.id))
    .limit(limit + 1);

  const page = rows
    .slice(0, limit)
    .map((row): SearchHit => ({ ...toSummary(row), rank: 0, snippet: boundSnippet(row.snippet) }));
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last ? encodeCursor({ occurredAt: last.occurredAt, id: last.id }) : null;
  return { items: page, nextCursor };
}

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return PAGE_LIMIT.default;
  return Math.min(PAGE_LIMIT.max, Math.max(1, Math.trunc(limit)));
}

/**
 * The person is the author or a participant: case-insensitive substring, so "alice" finds "Alice <alice@x>".
 * Tested on the joined names, which the trigram index serves; a name containing the separator could match
 * across two names there, so it is also tested name by name.
 */
function involves(person: string): SQL {
  const pattern = `%${person.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  const joined = sql`items_people(${items.author}, ${items.participants}) ilike ${pattern}`;
  if (!person.includes(PEOPLE_SEPARATOR)) return joined;
  return sql`(${joined} and (${items.author} ilike ${pattern} or exists (select 1 from unnest(${items.participants}) as p(name) where p.name ilike ${pattern})))`;
}

/**
 * The item names one of `keys` (identifier keys, as a person's view lists them): its people_keys overlap
 * them (the GIN index finds a rare person's items; for a common one the planner tests each row's own keys),
 * or it is an item one of the person's speaker keys belongs to.
 */
function namesAnyOf(keys: string[]): SQL | undefined {
  const stored = storedKeys(keys);
  return or(
    stored.keys.length > 0 ? sql`${items.peopleKeys} && ${sql.param(stored.keys)}::text[]` : undefined,
    stored.speakerItems.length > 0
      ? sql`${items.id} = any(${sql.param(stored.speakerItems)}::uuid[])`
      : undefined,
  );
}
