/**
 * The vector index's upkeep in Postgres (pgvector; schema.ts itemChunks, drizzle/0009): one partial HNSW
 * index per embedding model and size, built when a model's first vectors arrive and dropped with the last
 * vectors of a model no longer configured; and the SQL forms of a model's key that the index and the
 * searches share (the vector type, the partial index's predicate, the vector literal).
 *
 * Only SQL pgvector 0.8.0 has (Neon's version): `vector`, `halfvec`, `<=>`, HNSW with
 * `hnsw.ef_search` and `hnsw.iterative_scan`.
 */
import { sql } from "drizzle-orm";
import type { EmbeddingKey, VectorIndexState } from "../domain/item-embedding";
import type { Db } from "./client";
import { sha256Hex } from "./content-hash";

/** pgvector's HNSW indexes `halfvec` up to 4,000 dimensions. */
export const HNSW_MAX_HALFVEC_DIMENSIONS = 4000;
/** The type a model's index holds (vectorType). */
const INDEX_TYPE = "halfvec";

/**
 * The index for a (model, dimensions): a partial HNSW index over `embedding::halfvec(N)` restricted to that
 * model's rows, so each model's vectors have the fixed size an index needs while the column takes any size.
 * Half precision: the graph is about 40% smaller than over `vector(N)` with the same recall, so it stays in
 * a smaller database cache (docs/search-ranking.md); the exact plan and the stored vectors keep full
 * precision. Its name is derived from the key and the index's type (names are at most 63 bytes; model ids
 * can be longer): drizzle/0030 rebuilt the indexes over `vector(N)`, named without the type.
 */
export async function vectorIndexName(key: EmbeddingKey): Promise<string> {
  const hash = (await sha256Hex(`${key.model}\u0000${key.dimensions}\u0000${INDEX_TYPE}`)).slice(0, 12);
  return `item_chunks_hnsw_${key.dimensions}_${hash}`;
}

/**
 * Creates the model's HNSW index if it does not exist yet (CONCURRENTLY: writes go on while it builds),
 * and rebuilds one left invalid by an interrupted build. Idempotent; safe to call on every start or
 * before the first write of a model. Answers whether it built one.
 */
export async function ensureVectorIndex(
  db: Db,
  key: EmbeddingKey,
): Promise<{ name: string; created: boolean }> {
  assertIndexable(key);
  const name = await vectorIndexName(key);
  const state = await vectorIndexState(db, key);
  if (state === "valid" || state === "building") return { name, created: false };
  if (state === "invalid") await db.execute(sql.raw(`drop index concurrently if exists ${quoteIdent(name)}`));
  const { cast, ops } = vectorType(key.dimensions);
  await db.execute(
    sql.raw(
      `create index concurrently if not exists ${quoteIdent(name)} on item_chunks using hnsw ` +
        `((embedding::${cast}) ${ops}) where ${modelPredicate(key)}`,
    ),
  );
  return { name, created: true };
}

/** Drops the HNSW indexes of other models (after deleteOtherModelChunks emptied them). */
export async function dropOtherVectorIndexes(db: Db, keep: EmbeddingKey): Promise<string[]> {
  const keepName = await vectorIndexName(keep);
  const result = await db.execute(sql`
    select indexname from pg_indexes
    where schemaname = current_schema() and tablename = 'item_chunks'
      and indexname like 'item_chunks_hnsw_%' and indexname <> ${keepName}`);
  const names = (result.rows as { indexname: string }[]).map((r) => r.indexname);
  for (const name of names)
    await db.execute(sql.raw(`drop index concurrently if exists ${quoteIdent(name)}`));
  return names;
}

/** Where the model's index stands: valid, being built, left invalid by an interrupted build, or missing. */
export async function vectorIndexState(db: Db, key: EmbeddingKey): Promise<VectorIndexState> {
  const name = await vectorIndexName(key);
  const result = await db.execute(sql`
    select i.indisvalid,
      exists (select 1 from pg_stat_progress_create_index p where p.index_relid = c.oid) as building
    from pg_class c join pg_index i on i.indexrelid = c.oid
    where c.relname = ${name} and c.relnamespace = current_schema()::regnamespace`);
  const row = result.rows[0] as { indisvalid: boolean | string; building: boolean | string } | undefined;
  if (!row) return "missing";
  if (truthy(row.indisvalid)) return "valid";
  return truthy(row.building) ? "building" : "invalid";
}

/** pgvector's text form. 9 significant digits round-trip a float4, which is what pgvector stores. */
export function vectorLiteral(vector: readonly number[]): string {
  return `[${vector.map((x) => Number(x.toPrecision(9))).join(",")}]`;
}

/** The type the model's index holds, and its operator class. */
export function vectorType(dimensions: number): { cast: string; ops: string } {
  return { cast: `${INDEX_TYPE}(${dimensions})`, ops: `${INDEX_TYPE}_cosine_ops` };
}

/** The partial index's predicate; literals, so a query's WHERE proves it whatever its parameters. */
export function modelPredicate(key: EmbeddingKey, alias?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `${column("model")} = ${quoteLiteral(key.model)} and ${column("dimensions")} = ${key.dimensions}`;
}

export function assertIndexable(key: EmbeddingKey): void {
  if (
    !Number.isInteger(key.dimensions) ||
    key.dimensions < 1 ||
    key.dimensions > HNSW_MAX_HALFVEC_DIMENSIONS
  ) {
    throw new Error(
      `no HNSW index takes ${key.dimensions}-dimension vectors (1-${HNSW_MAX_HALFVEC_DIMENSIONS})`,
    );
  }
  const control = [...key.model].some((ch) => ch.charCodeAt(0) < 0x20);
  if (key.model === "" || control) throw new Error("invalid embedding model id");
}

/** A standard-conforming string literal (standard_conforming_strings is on by default since 9.1). */
function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const truthy = (value: unknown) => value === true || value === "t" || value === "true";
