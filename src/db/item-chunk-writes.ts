/**
 * Item chunks and their embeddings, written (pgvector; schema.ts itemChunks, drizzle/0009): what the
 * embeddings queue's consumer reads of the items it embeds and writes back, and the removal of another
 * model's vectors. Every function takes the embedding model as (model, dimensions): rows of other models or
 * sizes are never read as this one's.
 */
import { inArray, sql } from "drizzle-orm";
import type { EmbeddedChunk, EmbeddingKey, EmbeddingSource, ItemChunks } from "../domain/item-embedding";
import type { Db } from "./client";
import { vectorLiteral } from "./item-chunk-index";
import { items } from "./schema";

export interface ChunkWriteTarget extends EmbeddingKey {
  itemId: string;
  /** The item's content hash the chunks were made from. */
  contentHash: string;
}

/** Replaces one item's chunks (writeItemsChunks of one item): `written: false` when it changed or went away. */
export async function writeItemChunks(
  db: Db,
  target: ChunkWriteTarget,
  chunks: EmbeddedChunk[],
): Promise<{ written: boolean }> {
  const { model, dimensions, itemId, contentHash } = target;
  const { written } = await writeItemsChunks(db, { model, dimensions }, [{ itemId, contentHash, chunks }]);
  return { written: written.length > 0 };
}

/**
 * Replaces each item's chunks of this model with its `chunks`, in one statement for all of them, only for
 * the items that still exist with their `contentHash`; answers their ids. The statement locks those item
 * rows (FOR SHARE, in id order) and re-checks the hash on their newest versions, so an update or delete
 * that commits first wins (nothing is written for that item), and one that comes later waits for this
 * write and then makes these chunks stale (a newer hash) or removes them (the cascade). Chunks past an
 * item's new last index (its body got shorter) are deleted.
 */
export async function writeItemsChunks(
  db: Db,
  key: EmbeddingKey,
  targets: ItemChunks[],
): Promise<{ written: string[] }> {
  if (targets.length === 0) return { written: [] };
  const rows: { d: string; h: string; c: number; i: number; s: number; e: number; n: string; v: string }[] =
    [];
  for (const target of targets) {
    if (target.chunks.length === 0) throw new Error("an item has at least one chunk");
    for (const chunk of target.chunks) {
      if (chunk.embedding.length !== key.dimensions) {
        throw new Error(
          `chunk ${chunk.index} has ${chunk.embedding.length} dimensions, not ${key.dimensions}`,
        );
      }
      rows.push({
        d: target.itemId,
        h: target.contentHash,
        c: target.chunks.length,
        i: chunk.index,
        s: chunk.start,
        e: chunk.end,
        n: chunk.snippet,
        v: vectorLiteral(chunk.embedding),
      });
    }
  }
  const { model, dimensions } = key;
  const result = await db.execute(sql`
    with input as materialized (
      select r.d::uuid as item_id, r.h, r.c, r.i, r.s, r.e, r.n, r.v
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as r(d text, h text, c int, i int, s int, e int, n text, v text)
    ), target as (
      select it.id, it.content_hash from items it
      where (it.id, it.content_hash) in (select distinct item_id, h from input)
      order by it.id for share
    ), upserted as (
      insert into item_chunks
        (item_id, model, dimensions, chunk_index, content_hash, start_offset, end_offset, snippet, embedding)
      select t.id, ${model}, ${dimensions}::int, r.i, t.content_hash, r.s, r.e, r.n, r.v::vector
      from target t join input r on r.item_id = t.id
      order by t.id, r.i
      on conflict (item_id, model, dimensions, chunk_index) do update set
        content_hash = excluded.content_hash, start_offset = excluded.start_offset,
        end_offset = excluded.end_offset, snippet = excluded.snippet, embedding = excluded.embedding,
        embedded_at = now()
      returning 1
    ), trimmed as (
      delete from item_chunks c
      using target t, (select distinct item_id, c as total from input) k
      where k.item_id = t.id and c.item_id = t.id and c.model = ${model} and c.dimensions = ${dimensions}::int
        and c.chunk_index >= k.total
      returning 1
    )
    select t.id::text as id, (select count(*) from upserted) as written from target t`);
  return { written: (result.rows as { id: string }[]).map((r) => r.id) };
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
