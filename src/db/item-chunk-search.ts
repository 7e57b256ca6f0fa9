/**
 * The vector channel of search over item chunks (pgvector), under the access rule of item-rows.ts: the
 * items nearest to a query embedding (vectorSearchQuery, searchByVector) and several queries against a few
 * given items (nearItems, the related-evidence check).
 */
import { and, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import type { EmbeddingKey, NearItem, NearItemsOptions } from "../domain/item-embedding";
import type { ItemKind } from "../domain/item-schema";
import { type Db, NO_JIT, runWithDeadline } from "./client";
import { assertIndexable, modelPredicate, vectorLiteral, vectorType } from "./item-chunk-index";
import { ownedCount, ownedInTextIndex, sharedItems, visibleBranches, visibleTo } from "./item-rows";
import { items } from "./schema";

export interface VectorSearchOptions {
  /** Items to answer, best first (1-100; default 20). */
  limit?: number;
  kinds?: ItemKind[];
  /** occurred_at >= since */
  since?: Date;
  /** occurred_at < until */
  until?: Date;
  /** How the nearest chunks are found (see vectorSearchQuery); "auto" by default. */
  strategy?: "exact" | "index" | "auto";
  /** Further conditions on the item (`items` columns), e.g. search's people filter. */
  where?: SQL[];
  /**
   * `where` holds a people filter: the viewer's own items are then found through the text index, which
   * holds their owner and people keys (item-rows.ts ownedInTextIndex). With owner_id = … the planner could
   * AND the person's few items with a bitmap of all the owner's items from a btree (14 ms at 100,000).
   */
  byPeople?: boolean;
}

export interface VectorHit {
  itemId: string;
  /** Cosine distance of the item's best chunk (0 same direction, 2 opposite). */
  distance: number;
  chunkIndex: number;
  snippet: string;
}

/** "auto" counts the visible items up to this many; at least this many, it takes the index. */
const VISIBLE_COUNT_CAP = 20_000;
/**
 * A graph step's cost in exact scores (at 100,000 items of one viewer: about 18 µs a step, 4 µs a score,
 * bench/search-scale.ts).
 */
const GRAPH_STEP_COST = 4;

/**
 * Chunks read per answered item: several chunks of one item can be the nearest. The graph walk's cost
 * follows them: a semantic search filtered to the emails (100 items) took 50 ms at 400 chunks and 27.5 ms
 * at 200 in `psql` at 100,000 items, where an item has 1.25 chunks on average and the nearest 150 chunks
 * already held 100 items. Nearest chunks crowded into fewer items (long documents) answer fewer items.
 */
const CHUNKS_PER_HIT = 2;

/**
 * The vector channel of search, as SQL: the `limit` items the viewer may see (the access rule of
 * item-rows.ts, on the chunk's item) whose best current chunk (a chunk of the item's current content
 * hash) is nearest to `query` by cosine distance, best first, each with that chunk's index and snippet.
 * The nearest chunks are read first (up to CHUNKS_PER_HIT per hit), then grouped by item.
 *
 * Two plans for one answer (bench/vector-search.ts measures both), and a choice between them:
 * - "exact": the viewer's items first, through the access rule's two indexed branches
 *   (visibleBranches), then their chunks by primary key, every distance computed. Exact; its cost follows
 *   the viewer's own chunks (about 4 µs an item), whoever else the table holds.
 * - "index": shaped for the model's HNSW index (ensureVectorIndex): the ORDER BY is the index's
 *   expression and the model's rows are named by literals, so the planner can match the partial index's
 *   predicate; the access rule filters what the graph scan yields. Run it with vectorSearchSettings in the
 *   same transaction (searchByVector does), so the scan goes on past chunks the viewer may not see
 *   (iterative scan, up to hnsw.max_scan_tuples) instead of answering fewer items. Approximate; its cost
 *   follows the graph, not the viewer's size.
 * - "auto" (default): counts the items the viewer may see that pass the filters (n, up to
 *   VISIBLE_COUNT_CAP: a bounded walk of the same indexes) and weighs the two: "exact" scores n items;
 *   the graph scan steps past the chunks the viewer may not see, so it reads about candidates / share
 *   chunks (share = n / all chunks, from the table's statistics), each step costing about
 *   GRAPH_STEP_COST exact scores. It takes the index when n reaches the cap or n * share > candidates *
 *   GRAPH_STEP_COST. Both plans are in the statement behind one-time filters: only one of them runs. Needs
 *   vectorSearchSettings, like "index".
 */
export function vectorSearchQuery(
  subjectKey: string,
  query: number[],
  key: EmbeddingKey,
  options: VectorSearchOptions = {},
): SQL {
  assertIndexable(key);
  if (query.length !== key.dimensions) {
    throw new Error(`the query vector has ${query.length} dimensions, not ${key.dimensions}`);
  }
  const limit = clampLimit(options.limit);
  const candidates = chunkCandidates(options);
  const filters = [
    options.kinds?.length ? inArray(items.kind, options.kinds) : undefined,
    options.since ? gte(items.occurredAt, options.since) : undefined,
    options.until ? lt(items.occurredAt, options.until) : undefined,
    ...(options.where ?? []),
  ];
  const plan = { exact: nearestExact, index: nearestByIndex, auto: nearestByEither }[
    options.strategy ?? "auto"
  ];
  const nearest = plan({ subjectKey, query, key, filters, candidates, byPeople: options.byPeople ?? false });
  return sql`
    select best.item_id, best.chunk_index, best.snippet, best.distance from (
      select distinct on (nearest.item_id) nearest.* from (${nearest}) nearest
      order by nearest.item_id, nearest.distance
    ) best
    order by best.distance, best.item_id
    limit ${limit}::int`;
}

/** What each plan answers: the `candidates` chunks nearest to `query` that the viewer may see. */
interface NearestQuery {
  subjectKey: string;
  query: number[];
  key: EmbeddingKey;
  filters: (SQL | undefined)[];
  candidates: number;
  byPeople: boolean;
}

/** "auto": both plans behind one-time filters on the visible-items count, so only one of them runs. */
function nearestByEither(nearest: NearestQuery): SQL {
  const { subjectKey, filters, candidates, byPeople } = nearest;
  const steps = candidates * GRAPH_STEP_COST;
  // The count stops where the choice is made: one past both sqrt(all chunks * steps) and steps, n * n exceeds
  // greatest(n, all chunks) * steps (counting the 20,000 filtered items of a common kind took 190 ms of a
  // 590 ms hybrid search at 100,000 items).
  // reltuples is -1 (unknown) before the table's first analyze: then up to the cap.
  const allChunks = sql`(select reltuples::float8 from pg_class where oid = 'item_chunks'::regclass)`;
  const decided = sql`(case when ${allChunks} > 0
    then least(${VISIBLE_COUNT_CAP}::int, greatest(${steps}::int, floor(sqrt(${allChunks} * ${steps}::float8))::int) + 1)
    else ${VISIBLE_COUNT_CAP}::int end)`;
  // The items counted are kept: when the count stops short of the choice (exact), they are every visible
  // item, and the exact plan reads their chunks without finding them again (a person's 2,000 items took
  // 140 ms to count and as long again to read for the exact plan, at 100,000 items).
  // (Stopping at `decided` always makes n * n exceed greatest(n, all chunks) * steps, so the graph.)
  // Without filters the viewer sees at least the items they own, whose number is kept: when it reaches
  // `decided` the graph is chosen without counting (9 ms of a 28 ms semantic search at 100,000 items).
  // (CASE evaluates the count only when its branch is taken.)
  const counted = sql`(select n >= ${VISIBLE_COUNT_CAP}::int
    or n::float8 * n > greatest(n, ${allChunks}) * ${steps}::float8
    from (select count(*)::int as n from visible) v)`;
  const unfiltered = filters.every((f) => f === undefined);
  const graph = unfiltered
    ? sql`case when ${ownedCount(subjectKey)} >= ${decided} then true else ${counted} end`
    : counted;
  return sql`
    with visible as materialized (${visibleItems(subjectKey, filters, byPeople, decided)}),
    size as materialized (select ${graph} as graph)
    (select * from (${exactOver(sql`visible`, nearest)}) e where not (select graph from size))
    union all
    (select * from (${nearestByIndex(nearest)}) x where (select graph from size))`;
}

function nearestByIndex({ subjectKey, query, key, filters, candidates }: NearestQuery): SQL {
  const { cast } = vectorType(key.dimensions);
  const distance = sql`(c.embedding::${sql.raw(cast)} <=> ${vectorLiteral(query)}::${sql.raw(cast)})`;
  // The access rule and the filters as a correlated EXISTS, kept a filter of the graph scan by OFFSET 0 (an
  // EXISTS the planner turned into a join was estimated at one row, the current content hash on both
  // sides, and the graph scan lost to sorting every chunk: 570 ms at 128,000 chunks instead of 30).
  return sql`
    select c.item_id, c.chunk_index, c.snippet, ${distance} as distance
    from item_chunks c
    where ${sql.raw(modelPredicate(key, "c"))}
      and exists (
        select 1 from ${items}
        where ${items.id} = c.item_id and ${items.contentHash} = c.content_hash
          and ${and(visibleTo(subjectKey), ...filters)}
        offset 0)
    order by ${distance}
    limit ${candidates}::int`;
}

function nearestExact(nearest: NearestQuery): SQL {
  return exactOver(sql`(${visibleItems(nearest.subjectKey, nearest.filters, nearest.byPeople)})`, nearest);
}

/**
 * Every distance of the current chunks of the items `visible` lists (rows of id and content_hash): the
 * nearest `candidates`.
 */
function exactOver(visible: SQL, { query, key, candidates }: NearestQuery): SQL {
  // No cast in the ORDER BY, so no HNSW index can serve it: every distance of the viewer's chunks.
  const distance = sql`(c.embedding <=> ${vectorLiteral(query)}::vector)`;
  // LATERAL, fenced by OFFSET 0 so the planner cannot flatten it, pins the join order whatever the
  // statistics say: the visible items first, then each one's chunks by the primary key's prefix. A plain
  // join let the planner, misled by a chunks table not yet analysed (one row estimated), put the chunks
  // outside and rescan every visible item per chunk: 4.3 s for 1,500 items.
  return sql`
    select c.item_id, c.chunk_index, c.snippet, ${distance} as distance
    from (select v.id, v.content_hash from ${visible} v offset 0) v
    cross join lateral (
      select c.item_id, c.chunk_index, c.snippet, c.embedding from item_chunks c
      where c.item_id = v.id and ${sql.raw(modelPredicate(key, "c"))} and c.content_hash = v.content_hash
      offset 0
    ) c
    order by ${distance}
    limit ${candidates}::int`;
}

/**
 * The ids and current content hashes of the items the viewer may see that pass `filters`: all, or at most
 * `cap` of them. The owner's indexes carry the hash (drizzle/0026), so without filters, in a time window
 * or of some kinds they come from an index alone: reading each item's row for its hash took 15-20 ms of a
 * 30-day window's 5,300 items at 100,000. `byPeople`: the filters hold a people filter, and the owner's
 * items come from the text index with it (VectorSearchOptions.byPeople).
 */
function visibleItems(subjectKey: string, filters: (SQL | undefined)[], byPeople: boolean, cap?: SQL): SQL {
  const [ownedByKey] = visibleBranches(subjectKey);
  const owned = byPeople ? ownedInTextIndex(subjectKey) : ownedByKey;
  const limit = cap ? sql`limit ${cap}` : sql``;
  const columns = sql`${items.id} as id, ${items.contentHash} as content_hash`;
  return sql`
    (select ${columns} from ${items} where ${and(owned, ...filters)} ${limit})
    union all
    (select ${columns} from ${sharedItems(subjectKey)} where ${and(sql`true`, ...filters)} ${limit})
    ${limit}`;
}

/** The session settings of a vector search (SET LOCAL: only for the transaction they run in). */
export function vectorSearchSettings(options: VectorSearchOptions = {}): SQL[] {
  const candidates = chunkCandidates(options);
  return [
    // pgvector 0.8.0: keep scanning the graph until enough rows pass the filters (the access rule).
    sql.raw(`set local hnsw.iterative_scan = relaxed_order`),
    sql.raw(`set local hnsw.ef_search = ${Math.max(40, Math.min(1000, candidates))}`),
    // The plan not taken still counts in the estimate (client.ts NO_JIT).
    NO_JIT,
  ];
}

/**
 * Runs vectorSearchQuery, with its settings unless "exact" (runWithDeadline: one transaction, which SET
 * LOCAL needs).
 */
export async function searchByVector(
  db: Db,
  subjectKey: string,
  query: number[],
  key: EmbeddingKey,
  options: VectorSearchOptions = {},
): Promise<VectorHit[]> {
  const statement = vectorSearchQuery(subjectKey, query, key, options);
  const settings = options.strategy === "exact" ? [] : vectorSearchSettings(options);
  const rows = await runWithDeadline(db, statement, settings);
  return rows.map((row) => ({
    itemId: String(row.item_id),
    distance: Number(row.distance),
    chunkIndex: Number(row.chunk_index),
    snippet: String(row.snippet),
  }));
}

/**
 * NearItems.nearItems as SQL, one statement for every query: the queries arrive as one JSON array of
 * vector literals, the given items' current chunks of the model (their first `chunksPerItem`, under the
 * access rule) are scored against each query, each (query, item) pair keeps its best chunk, and each
 * query keeps its `perQuery` best items at or above `minSimilarity`. Exact: the work is queries x chunks
 * of the given items, so the caller bounds both.
 */
export async function nearItems(
  db: Db,
  subjectKey: string,
  queries: readonly (readonly number[])[],
  itemIds: readonly string[],
  key: EmbeddingKey,
  options: NearItemsOptions,
): Promise<NearItem[]> {
  if (queries.length === 0 || itemIds.length === 0 || options.perQuery < 1) return [];
  assertIndexable(key);
  for (const query of queries) {
    if (query.length !== key.dimensions) {
      throw new Error(`a query vector has ${query.length} dimensions, not ${key.dimensions}`);
    }
  }
  const result = await db.execute(sql`
    with q as (
      select (r.n - 1)::int as i, r.v::vector as v
      from jsonb_array_elements_text(${JSON.stringify(queries.map(vectorLiteral))}::jsonb)
        with ordinality as r(v, n)
    ), c as (
      select c.item_id, c.embedding from ${items}
      join item_chunks c on c.item_id = ${items.id} and ${sql.raw(modelPredicate(key, "c"))}
        and c.content_hash = ${items.contentHash} and c.chunk_index < ${options.chunksPerItem}::int
      where ${items.id} = any(${sql.param([...itemIds])}::uuid[]) and ${visibleTo(subjectKey)}
    ), scored as (
      select q.i, c.item_id, max(1 - (c.embedding <=> q.v)) as similarity
      from q cross join c group by q.i, c.item_id
    ), ranked as (
      select s.i, s.item_id, s.similarity,
        row_number() over (partition by s.i order by s.similarity desc, s.item_id) as rank
      from scored s where s.similarity >= ${options.minSimilarity}::float8
    )
    select i, item_id, similarity from ranked where rank <= ${options.perQuery}::int order by i, rank`);
  return (result.rows as { i: unknown; item_id: unknown; similarity: unknown }[]).map((row) => ({
    query: Number(row.i),
    itemId: String(row.item_id),
    similarity: Number(row.similarity),
  }));
}

/** The nearest chunks a search reads (the statement's and the graph's ef_search alike). */
function chunkCandidates(options: VectorSearchOptions): number {
  return clampLimit(options.limit) * CHUNKS_PER_HIT;
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return 20;
  return Math.min(100, Math.max(1, Math.trunc(limit)));
}
