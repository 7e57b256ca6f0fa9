/**
 * The searches with a vector channel (item-search.ts rankedSearch decides which runs): semantic, the
 * vector channel alone in one statement; hybrid, the keyword and vector channels as two statements at once
 * (each on its own connection, so the search costs about the slower one), each with its candidates'
 * columns, fused in the worker (domain/search-fusion.ts). Both page over one fixed candidate set: the cursor
 * carries the first page's instant, and later pages leave out items written after it.
 */
import { lte, type SQL, sql } from "drizzle-orm";
import type { QueryEmbedding, SearchPage } from "../domain/items";
import {
  compareFused,
  type FusedCandidate,
  type FusedPosition,
  type FusionWeights,
  fuseChannels,
} from "../domain/search-fusion";
import { type Db, NO_JIT, runWithDeadline } from "./client";
import { vectorSearchQuery, vectorSearchSettings } from "./item-chunk-search";
import { toDate, visibleTo } from "./item-rows";
import type { KeywordQuery } from "./keyword-query";
import { type KeywordChannel, keywordRanked, type SearchFilters } from "./keyword-ranking";
import { items } from "./schema";
import { decodeFusedCursor, encodeFusedCursor, type FusedCursor, rankedAfter } from "./search-cursor";
import { headline, rankedHit } from "./search-hits";

/** Hybrid search fuses the top FUSION_DEPTH of each channel. */
export const FUSION_DEPTH = 50;
/** Semantic search ranks the vector channel's top SEMANTIC_DEPTH items. */
export const SEMANTIC_DEPTH = 100;

/** The vector channel's statement: its `depth` nearest visible items passing `filters`. */
function vectorChannel(subjectKey: string, vector: QueryEmbedding, depth: number, filters: SearchFilters) {
  const key = { model: vector.model, dimensions: vector.vector.length };
  const where = filters.conditions.filter((c): c is SQL => c !== undefined);
  const options = { limit: depth, where, byPeople: filters.people };
  return {
    statement: vectorSearchQuery(subjectKey, vector.vector, key, options),
    settings: vectorSearchSettings(options),
  };
}

/** A fused search's filters: a later page leaves out what was written after the first page's instant. */
function fusedFilters(filters: SearchFilters, cursor: FusedCursor | undefined): SearchFilters {
  return cursor
    ? { ...filters, conditions: [...filters.conditions, lte(items.updatedAt, cursor.at)] }
    : filters;
}

/**
 * The vector channel alone: an item's score is its place between the channel's farthest and nearest
 * candidates (1 for the nearest, as hybrid's vector part), its snippet that of its nearest chunk.
 */
export async function semanticSearch(
  db: Db,
  subjectKey: string,
  vector: QueryEmbedding,
  filters: SearchFilters,
  limit: number,
  cursorText: string | undefined,
): Promise<SearchPage> {
  const cursor = cursorText ? decodeFusedCursor(cursorText, "v") : undefined;
  const vec = vectorChannel(subjectKey, vector, SEMANTIC_DEPTH, fusedFilters(filters, cursor));
  const after = rankedAfter(sql`(v.score, i.occurred_at, i.id)`, cursor);
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

/** An item's columns as a hit shows them, from `i`, the items table joined by a channel's statement. */
const hitColumns = sql`i.kind, i.source, i.external_id, i.title, i.author`;

/**
 * Both channels, each statement on its own connection at once (the keyword channel after its statistics,
 * unless the cursor carries them, and from the start; the vector channel once the query's embedding has
 * come), fused in domain/search-fusion.ts. Each channel's statement answers its candidates' columns too,
 * under the access rule in the same snapshot, so a page costs two statements one after the other, as a
 * keyword search does: the keyword channel cuts headlines for its first `limit` candidates of a first page
 * (the page when the vector channel changes nothing), and only a hit without one or a chunk's snippet has
 * its headline cut by a third statement (pageHeadlines). Null when the query could not be embedded: the
 * caller answers with the keyword channel alone.
 */
export async function hybridSearch(
  db: Db,
  subjectKey: string,
  channels: { keyword: KeywordChannel; vector: Promise<QueryEmbedding | undefined> },
  weights: FusionWeights,
  filters: SearchFilters,
  limit: number,
  cursorText: string | undefined,
): Promise<SearchPage | null> {
  const { keyword, vector } = channels;
  const cursor = cursorText ? decodeFusedCursor(cursorText, "kv") : undefined;
  const scoped = fusedFilters(filters, cursor);
  const headlines = cursor ? 0 : limit;
  const keywordTop = async () => {
    const stats = cursor?.stats ?? (await keyword.statistics());
    const rows = await runWithDeadline(
      db,
      sql`with k as (
          select k.id, k.score, k.coverage, k.occurred_at,
            row_number() over (order by k.score desc, k.occurred_at desc, k.id desc) as place
          from (${keywordRanked(subjectKey, keyword.query, stats, scoped)}) k
          order by k.score desc, k.occurred_at desc, k.id desc limit ${FUSION_DEPTH}::int)
        select k.id, k.score, k.coverage, k.occurred_at, ${hitColumns},
          case when k.place <= ${headlines}::int then ${headline(sql`i.body`, keyword.query.terms)} end as snippet,
          statement_timestamp() as at
        from k join ${items} i on i.id = k.id
        order by k.place`,
      [NO_JIT],
    );
    return { stats, rows };
  };
  const vectorTop = (embedding: QueryEmbedding) => {
    const vec = vectorChannel(subjectKey, embedding, FUSION_DEPTH, scoped);
    return runWithDeadline(
      db,
      sql`select v.item_id as id, v.distance, v.snippet, i.occurred_at, ${hitColumns}, statement_timestamp() as at
        from (${vec.statement}) v join ${items} i on i.id = v.item_id
        order by v.distance, v.item_id`,
      vec.settings,
    );
  };
  const [kw, near] = await Promise.all([keywordTop(), vector.then((v) => (v ? vectorTop(v) : null))]);
  if (!near) return null;
  const fused = fuseChannels(
    kw.rows.map((r) => ({
      id: String(r.id),
      score: Number(r.score),
      coverage: Number(r.coverage),
      occurredAt: toDate(r.occurred_at as Date | string),
    })),
    near.map((r) => ({
      id: String(r.id),
      distance: Number(r.distance),
      snippet: String(r.snippet),
      occurredAt: toDate(r.occurred_at as Date | string),
    })),
    weights,
  );
  const rest = cursor ? fused.filter((f) => compareFused(f, cursor) < 0) : fused;
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  const instants = [...kw.rows, ...near].map((r) => toDate(r.at as Date | string).getTime());
  const at = cursor?.at ?? (instants.length > 0 ? new Date(Math.min(...instants)) : undefined);
  const more = rest.length > limit && last && at;
  // An item both channels found has the keyword row: its headline, when the channel cut one.
  const rows = new Map([...near, ...kw.rows].map((r) => [String(r.id), r]));
  const snippetOf = (f: FusedCandidate) => f.chunkSnippet ?? rows.get(f.id)?.snippet;
  const missing = page.filter((f) => snippetOf(f) == null).map((f) => f.id);
  const cut = missing.length > 0 ? await pageHeadlines(db, subjectKey, keyword.query, missing) : new Map();
  return {
    items: page.map((f) =>
      rankedHit({ ...rows.get(f.id), score: f.score, snippet: snippetOf(f) ?? cut.get(f.id) }),
    ),
    nextCursor: more ? nextFused({ channels: "kv", at, stats: kw.stats }, last) : null,
  };
}

/** Headlines of the given items (those of a page whose channel rows carry none), under the access rule. */
async function pageHeadlines(
  db: Db,
  subjectKey: string,
  keyword: KeywordQuery,
  ids: string[],
): Promise<Map<string, string>> {
  const rows = await runWithDeadline(
    db,
    sql`select ${items.id} as id, ${headline(items.body, keyword.terms)} as snippet
    from ${items} where ${items.id} = any(${sql.param(ids)}::uuid[]) and ${visibleTo(subjectKey)}`,
  );
  return new Map(rows.map((r) => [String(r.id), String(r.snippet ?? "")]));
}

/** The cursor of the page after the one that ends at `last`. */
function nextFused(search: Pick<FusedCursor, "channels" | "at" | "stats">, last: FusedPosition): string {
  return encodeFusedCursor({ ...search, score: last.score, occurredAt: last.occurredAt, id: last.id });
}
