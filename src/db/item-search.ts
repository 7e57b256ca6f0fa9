/**
 * Search over what a viewer may see. With a query: the keyword channel (keyword-query.ts, against the
 * generated `search` column: title weighted A, author B, body C, ranked by BM25) and, for hybrid and
 * semantic searches, the vector channel (rankedSearch below). Without one: newest first. Keyset
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
import { and, desc, gte, inArray, lt, lte, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type PgSelect, unionAll } from "drizzle-orm/pg-core";
import type { ItemKind } from "../domain/item-schema";
import type { SearchHit, SearchPage, SearchQuery } from "../domain/items";
import { PAGE_LIMIT } from "../domain/pages";
import { compareFused, type FusedCandidate, type FusedPosition, fuseChannels } from "../domain/search-fusion";
import { type Db, NO_JIT, runWithDeadline } from "./client";
import { vectorSearchQuery, vectorSearchSettings } from "./item-chunk-search";
import { storedKeys } from "./item-people-writes";
import { summaryColumns, toDate, toSummary, visibleBranches, visibleTo } from "./item-rows";
import { isQuestion, type KeywordQuery, keywordQuery } from "./keyword-query";
import { anyTerm, keywordRanked, keywordStatistics } from "./keyword-ranking";
import { items } from "./schema";
import {
  decodeCursor,
  decodeFusedCursor,
  encodeCursor,
  encodeFusedCursor,
  type FusedCursor,
} from "./search-cursor";

/**
 * Hybrid search's weight of the vector channel (domain/search-fusion.ts). The keyword channel leads, its
 * BM25 scores being the better calibrated (a strong match stays on top); the vector channel reorders close
 * keyword scores and brings in what keywords miss, above weak keyword matches.
 */
export const VECTOR_WEIGHT = 0.25;
/**
 * The vector channel's weight for a query written as a question (keyword-query.ts isQuestion). A question
 * names its subject in a few content words among framing words (who, did, say, about, ...): BM25 drops the
 * framing and weighs the content words by rarity, while the query's embedding carries the framing too and
 * sits nearer to every conversational item, so the vector channel is a weaker judge of a question than of a
 * topical query and only breaks near-ties of the keyword channel (docs/search-ranking.md, the benchmark).
 */
export const QUESTION_VECTOR_WEIGHT = 0.1;
/** Hybrid search fuses the top FUSION_DEPTH of each channel. */
export const FUSION_DEPTH = 50;
/** Semantic search ranks the vector channel's top SEMANTIC_DEPTH items. */
export const SEMANTIC_DEPTH = 100;
const HEADLINE_OPTIONS = 'MaxFragments=1, MaxWords=35, MinWords=15, StartSel="", StopSel=""';
const SNIPPET_CHARS = 240;
/**
 * ts_headline parses all the text it is given (about 0.13 µs a character here), and the best-ranked hits
 * tend to be long documents: 21 of them at 20,000 characters took 55 ms. So it gets this much of the body,
 * starting HEADLINE_LEAD_CHARS before the first occurrence of one of the query's lexemes in the body's
 * first HEADLINE_PROBE_CHARS (a lowercase substring search; stems are mostly prefixes of the words they
 * come from), else the body's beginning.
 */
const HEADLINE_SOURCE_CHARS = 2_000;
const HEADLINE_LEAD_CHARS = 300;
const HEADLINE_PROBE_CHARS = 50_000;
/**
 * Joins an item's author and participants in `items_people(author, participants)`, the expression the
 * trigram index `items_people_trgm_idx` covers (see drizzle/0007). A name without it matches the joined
 * text exactly when it matches the author or one participant.
 */
const PEOPLE_SEPARATOR = "\n";

export async function searchItems(db: Db, subjectKey: string, query: SearchQuery): Promise<SearchPage> {
  const limit = clampLimit(query.limit);
  const q = query.q?.trim() || undefined;
  const filters: (SQL | undefined)[] = [];
  if (query.kinds?.length) filters.push(inArray(items.kind, query.kinds));
  if (query.since) filters.push(gte(items.occurredAt, query.since));
  if (query.until) filters.push(lt(items.occurredAt, query.until));
  if (query.people?.length || query.identifiers?.length) {
    filters.push(or(...(query.people ?? []).map(involves), namesAnyOf(query.identifiers ?? [])));
  }
  if (!q) return newestFirst(db, subjectKey, filters, limit, query.cursor);
  const mode = query.mode ?? "keyword";
  // A time window and one kind keep a newest-first walk in an index's order; people and several kinds do
  // not (keyword-ranking.ts boundedScan).
  const ordered = !query.people?.length && !query.identifiers?.length && (query.kinds?.length ?? 0) <= 1;
  const keyword = mode === "semantic" ? null : keywordQuery(q);
  return rankedSearch(db, subjectKey, { conditions: filters, ordered }, limit, query.cursor, {
    keyword,
    vector: mode === "keyword" ? undefined : query.embedding,
    vectorWeight: isQuestion(q) ? QUESTION_VECTOR_WEIGHT : VECTOR_WEIGHT,
  });
}

/** A search's filters as conditions on items, and whether they keep a newest-first walk in index order. */
interface Filters {
  conditions: (SQL | undefined)[];
  ordered: boolean;
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
 * - keyword: ordered by BM25 score, then newest first.
 * - hybrid: the top FUSION_DEPTH of each channel, read side by side (two statements at once, so the
 *   search costs the slower channel, not both), fused by score (domain/search-fusion.ts), ties newest
 *   first, then by id; then the page's items.
 * - semantic: the vector channel alone, its top SEMANTIC_DEPTH by distance, in one statement.
 * With a vector channel, every page reads the same fixed candidate set: the cursor carries the first page's
 * instant and later pages leave out items written after it.
 */
async function rankedSearch(
  db: Db,
  subjectKey: string,
  filters: Filters,
  limit: number,
  cursorText: string | undefined,
  channels: { keyword: KeywordQuery | null; vector: SearchQuery["embedding"]; vectorWeight: number },
): Promise<SearchPage> {
  const { keyword, vector } = channels;
  if (!vector) return keywordSearch(db, subjectKey, keyword, filters, limit, cursorText);
  if (!keyword) return semanticSearch(db, subjectKey, vector, filters.conditions, limit, cursorText);
  return hybridSearch(db, subjectKey, { keyword, vector }, channels.vectorWeight, filters, limit, cursorText);
}

type QueryVector = NonNullable<SearchQuery["embedding"]>;

/** The vector channel's statement: its `depth` nearest visible items passing `conditions`. */
function vectorChannel(
  subjectKey: string,
  vector: QueryVector,
  depth: number,
  conditions: (SQL | undefined)[],
) {
  const key = { model: vector.model, dimensions: vector.vector.length };
  const options = { limit: depth, where: conditions.filter((c): c is SQL => c !== undefined) };
  return {
    statement: vectorSearchQuery(subjectKey, vector.vector, key, options),
    settings: vectorSearchSettings(options),
  };
}

/** A fused search's conditions: a later page leaves out what was written after the first page's instant. */
function fusedConditions(filters: (SQL | undefined)[], cursor: FusedCursor | undefined) {
  return cursor ? [...filters, lte(items.updatedAt, cursor.at)] : filters;
}

/**
 * The vector channel alone: an item's score is its place between the channel's farthest and nearest
 * candidates (1 for the nearest, as hybrid's vector part), its snippet that of its nearest chunk.
 */
async function semanticSearch(
  db: Db,
  subjectKey: string,
  vector: QueryVector,
  filters: (SQL | undefined)[],
  limit: number,
  cursorText: string | undefined,
): Promise<SearchPage> {
  const cursor = cursorText ? decodeFusedCursor(cursorText, "v") : undefined;
  const vec = vectorChannel(subjectKey, vector, SEMANTIC_DEPTH, fusedConditions(filters, cursor));
  const after = cursor
    ? sql`where (v.score, i.occurred_at, i.id) < (${cursor.score}::float8, ${cursor.occurredAt.toISOString()}::timestamptz, ${cursor.id}::uuid)`
    : sql``;
  const rows = await runWithDeadline(
    db,
    sql`
    with v as materialized (
      select v.item_id as id, v.snippet,
        coalesce((max(v.distance) over () - v.distance) / nullif(max(v.distance) over () - min(v.distance) over (), 0), 1) as score
      from (${vec.statement}) v
    )
    select i.id, i.kind, i.source, i.external_id, i.title, i.author, i.occurred_at, v.score, v.snippet,
      statement_timestamp() as at
    from v join ${items} i on i.id = v.id
    ${after}
    order by v.score desc, i.occurred_at desc, i.id desc
    limit ${limit + 1}::int`,
    vec.settings,
  );
  const hits = rows.slice(0, limit).map(rankedHit);
  const last = hits.at(-1);
  const at = cursor?.at ?? (rows[0] ? toDate(rows[0].at as Date | string) : undefined);
  const more = rows.length > limit && last && at;
  return {
    items: hits,
    nextCursor: more ? nextFused({ channels: "v", at }, { ...last, score: last.rank }) : null,
  };
}

/**
 * Both channels, each statement on its own connection at once (the keyword channel after its statistics,
 * unless the cursor carries them), fused in domain/search-fusion.ts; then the page's items, under the
 * access rule again (an item may have been unshared in between), with their snippets.
 */
async function hybridSearch(
  db: Db,
  subjectKey: string,
  channels: { keyword: KeywordQuery; vector: QueryVector },
  vectorWeight: number,
  filters: Filters,
  limit: number,
  cursorText: string | undefined,
): Promise<SearchPage> {
  const { keyword, vector } = channels;
  const cursor = cursorText ? decodeFusedCursor(cursorText, "kv") : undefined;
  const conditions = fusedConditions(filters.conditions, cursor);
  const keywordTop = async () => {
    const stats = cursor?.stats ?? (await keywordStatistics(db, subjectKey, keyword));
    const rows = await runWithDeadline(
      db,
      sql`select k.id, k.score, k.occurred_at, statement_timestamp() as at
        from (${keywordRanked(subjectKey, keyword, stats, conditions, filters.ordered)}) k
        order by k.score desc, k.occurred_at desc, k.id desc limit ${FUSION_DEPTH}::int`,
      [NO_JIT],
    );
    return { stats, rows };
  };
  const vec = vectorChannel(subjectKey, vector, FUSION_DEPTH, conditions);
  const vectorTop = () =>
    runWithDeadline(
      db,
      sql`select v.item_id as id, v.distance, v.snippet, i.occurred_at, statement_timestamp() as at
        from (${vec.statement}) v join ${items} i on i.id = v.item_id
        order by v.distance, v.item_id`,
      vec.settings,
    );
  const [kw, near] = await Promise.all([keywordTop(), vectorTop()]);
  const fused = fuseChannels(
    kw.rows.map((r) => ({
      id: String(r.id),
      score: Number(r.score),
      occurredAt: toDate(r.occurred_at as Date | string),
    })),
    near.map((r) => ({
      id: String(r.id),
      distance: Number(r.distance),
      snippet: String(r.snippet),
      occurredAt: toDate(r.occurred_at as Date | string),
    })),
    vectorWeight,
  );
  const rest = cursor ? fused.filter((f) => compareFused(f, cursor) < 0) : fused;
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  const instants = [...kw.rows, ...near].map((r) => toDate(r.at as Date | string).getTime());
  const at = cursor?.at ?? (instants.length > 0 ? new Date(Math.min(...instants)) : undefined);
  // The next page starts below this page's last candidate, even one whose item is gone since (fusedHits).
  const more = rest.length > limit && last && at;
  return {
    items: await fusedHits(db, subjectKey, keyword, page),
    nextCursor: more ? nextFused({ channels: "kv", at, stats: kw.stats }, last) : null,
  };
}

/** The fused candidates' items in the candidates' order, each with its chunk's snippet or a headline. */
async function fusedHits(
  db: Db,
  subjectKey: string,
  keyword: KeywordQuery,
  wanted: FusedCandidate[],
): Promise<SearchHit[]> {
  if (wanted.length === 0) return [];
  const loose = anyTerm(keyword.terms);
  const cut = wanted.filter((f) => f.chunkSnippet === null).map((f) => f.id);
  const rows = await runWithDeadline(
    db,
    sql`select ${items.id} as id, ${items.kind} as kind, ${items.source} as source, ${items.externalId} as external_id,
      ${items.title} as title, ${items.author} as author, ${items.occurredAt} as occurred_at,
      case when ${items.id} = any(${sql.param(cut)}::uuid[])
        then ts_headline('english', ${headlineSource(items.body, loose)}, ${loose}, ${HEADLINE_OPTIONS}) end as snippet
    from ${items} where ${items.id} = any(${sql.param(wanted.map((f) => f.id))}::uuid[]) and ${visibleTo(subjectKey)}`,
  );
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  return wanted.flatMap((f) => {
    const row = byId.get(f.id);
    return row ? [rankedHit({ ...row, score: f.score, snippet: f.chunkSnippet ?? row.snippet })] : [];
  });
}

/** The cursor of the page after the one that ends at `last`. */
function nextFused(search: Pick<FusedCursor, "channels" | "at" | "stats">, last: FusedPosition): string {
  return encodeFusedCursor({ ...search, score: last.score, occurredAt: last.occurredAt, id: last.id });
}

/** Keyword only: every match ranked by BM25 (keyword-ranking.ts), best first, ties newest first. */
async function keywordSearch(
  db: Db,
  subjectKey: string,
  keyword: KeywordQuery | null,
  filters: Filters,
  limit: number,
  cursorText: string | undefined,
): Promise<SearchPage> {
  const cursor = cursorText ? decodeCursor(cursorText, true) : undefined;
  if (!keyword) return { items: [], nextCursor: null };
  const stats = cursor?.stats ?? (await keywordStatistics(db, subjectKey, keyword));
  const loose = anyTerm(keyword.terms);
  const after = cursor
    ? sql`where (c.score, c.occurred_at, c.id) < (${cursor.rank}::float8, ${cursor.occurredAt.toISOString()}::timestamptz, ${cursor.id}::uuid)`
    : sql``;
  // The page is cut from the candidates' own columns before the items are read for their columns and
  // snippets: ordered by the items' columns, every candidate (up to CANDIDATE_BUDGET) was read by primary key.
  const rows = await runWithDeadline(
    db,
    sql`
    with c as (${keywordRanked(subjectKey, keyword, stats, filters.conditions, filters.ordered)}),
    page as (select * from c ${after} order by c.score desc, c.occurred_at desc, c.id desc limit ${limit + 1}::int)
    select i.id, i.kind, i.source, i.external_id, i.title, i.author, i.occurred_at, c.score,
      ts_headline('english', ${headlineSource(sql`i.body`, loose)}, ${loose}, ${HEADLINE_OPTIONS}) as snippet
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

/**
 * The part of `body` ts_headline reads (see HEADLINE_SOURCE_CHARS). querytree() lists the query's positive
 * lexemes, quoted; lexemes under three letters are too common to place the window.
 */
function headlineSource(body: SQLWrapper, tsquery: SQL): SQL {
  const firstMatch = sql`(select min(nullif(strpos(lower(left(${body}, ${HEADLINE_PROBE_CHARS})), m[1]), 0))
    from regexp_matches(querytree(${tsquery}), '''((?:[^'']|'''')+)''', 'g') as m where length(m[1]) >= 3)`;
  return sql`substr(${body}, greatest(1, coalesce(${firstMatch}, 1) - ${HEADLINE_LEAD_CHARS}), ${HEADLINE_SOURCE_CHARS})`;
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

function boundSnippet(text: string): string {
  const clean = text.replace(/\s+/g, " ").trim();
  return clean.length > SNIPPET_CHARS ? `${clean.slice(0, SNIPPET_CHARS - 1)}…` : clean;
}

/** A row of a ranked or fused search (its item's columns, score and snippet) as a hit. */
function rankedHit(row: Record<string, unknown>): SearchHit {
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
