/**
 * Item chunks and their embeddings, written (pgvector; schema.ts itemChunks, drizzle/0009): what the
 * embeddings queue's consumer reads of the items it embeds and writes back, and the removal of another
 * model's vectors. Every function takes the embedding model as (model, dimensions): rows of other models or
 * sizes are never read as this one's.
 */
import { inArray, sql } from "drizzle-orm";
import type { EmbeddedChunk, EmbeddingKey, EmbeddingSource } from "../domain/item-embedding";
import type { Db } from "./client";
import { vectorLiteral } from "./item-chunk-index";
import { items } from "./schema";

export interface ChunkWriteTarget extends EmbeddingKey {
  itemId: string;
  /** The item's content hash the chunks were made from. */
  contentHash: string;
}

/**
 * Replaces the item's chunks of this model with `chunks`, in one statement, only if the item still
 * exists with `contentHash`. The statement locks the item row (FOR SHARE) and re-checks the hash on its
 * newest version, so an update or delete that commits first wins (nothing is written; `written: false`),
 * and one that comes later waits for this write and then makes these chunks stale (a newer hash) or
 * removes them (the cascade). Chunks past the new last index (the body got shorter) are deleted.
 */
export async function writeItemChunks(
  db: Db,
  target: ChunkWriteTarget,
  chunks: EmbeddedChunk[],
): Promise<{ written: boolean }> {
  if (chunks.length === 0) throw new Error("an item has at least one chunk");
  for (const chunk of chunks) {
    if (chunk.embedding.length !== target.dimensions) {
      throw new Error(
        `chunk ${chunk.index} has ${chunk.embedding.length} dimensions, not ${target.dimensions}`,
      );
    }
  }
  const rows = chunks.map((c) => ({
    i: c.index,
    s: c.start,
    e: c.end,
    n: c.snippet,
    v: vectorLiteral(c.embedding),
  }));
  const { model, dimensions, itemId, contentHash } = target;
  const result = await db.execute(sql`
    with target as (
      select id from items where id = ${itemId}::uuid and content_hash = ${contentHash} for share
    ), upserted as (
      insert into item_chunks
        (item_id, model, dimensions, chunk_index, content_hash, start_offset, end_offset, snippet, embedding)
      select t.id, ${model}, ${dimensions}::int, r.i, ${contentHash}, r.s, r.e, r.n, r.v::vector
      from target t cross join jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as r(i int, s int, e int, n text, v text)
      on conflict (item_id, model, dimensions, chunk_index) do update set
        content_hash = excluded.content_hash, start_offset = excluded.start_offset,
        end_offset = excluded.end_offset, snippet = excluded.snippet, embedding = excluded.embedding,
        embedded_at = now()
      returning 1
    ), trimmed as (
      delete from item_chunks c using target t
      where c.item_id = t.id and c.model = ${model} and c.dimensions = ${dimensions}::int
        and c.chunk_index >= ${chunks.length}::int
      returning 1
    )
    select (select count(*) from target) as matched, (select count(*) from upserted) as written`);
  const row = result.rows[0] as { matched: string | number } | undefined;
  return { written: Number(row?.matched ?? 0) > 0 };
}

/**
 * Deletes up to `limit` chunks of every other model or size (after the configured embedder changed);
 * call again while it answers `limit`. Their HNSW indexes go with dropOtherVectorIndexes.
 */
export async function deleteOtherModelChunks(db: Db, keep: EmbeddingKey, limit = 5000): Promise<number> {
  const result = await db.execute(sql`
    delete from item_chunks where ctid = any(array(
      select ctid from item_chunks
      where not (model = ${keep.model} and dimensions = ${keep.dimensions}::int)
      limit ${limit}::int))`);
  return result.rowCount ?? 0;
}

/**
 * What chunking needs of these items (those that still exist), with the hash to write their chunks under;
 * the body cut to its first `maxBodyChars` characters (EMBEDDING_MAX_BODY_CHARS: chunking reads no further).
 */
export async function loadEmbeddingSources(
  db: Db,
  ids: string[],
  maxBodyChars: number,
): Promise<EmbeddingSource[]> {
  if (ids.length === 0) return [];
  return db
    .select({
      id: items.id,
      kind: items.kind,
      title: items.title,
      body: sql<string>`left(${items.body}, ${maxBodyChars}::int)`,
      contentHash: items.contentHash,
    })
    .from(items)
    .where(inArray(items.id, ids));
}
