/**
 * EmbeddingIndex over Postgres: the chunk store (pg-chunk-store.ts) plus what the queue, the daily backfill,
 * GET /items/:id, the admin counts and the related-evidence check ask. "Indexed" means a first chunk
 * (chunk_index 0) of the model for the item's current content hash; with the model's size known, of that
 * size only.
 */
import { type SQL, sql } from "drizzle-orm";
import type { EmbeddingIndex, EmbeddingModelRef } from "../domain/item-embedding";
import type { Db } from "./client";
import { dropOtherVectorIndexes, ensureVectorIndex, vectorIndexState } from "./item-chunk-index";
import { nearItems } from "./item-chunk-search";
import { deleteOtherModelChunks } from "./item-chunk-writes";
import { createPgChunkStore } from "./pg-chunk-store";

/** The sweep_cursors row naming the model whose backfill has started (its key: model id and size). */
export const BACKFILL_CLAIM = "embeddings-model";
export const backfillClaimKey = (ref: EmbeddingModelRef) => `${ref.model} ${ref.dimensions ?? "?"}`;

/** `maintenance`: the same database for index builds and drops, which outlast a request's deadline. */
export function createPgEmbeddingIndex(db: Db, maintenance: Db = db): EmbeddingIndex {
  const chunkOf = (ref: EmbeddingModelRef, item: SQL): SQL => sql`exists (
    select 1 from item_chunks c
    where c.item_id = ${item}.id and c.model = ${ref.model} and c.chunk_index = 0
      and c.content_hash = ${item}.content_hash
      ${ref.dimensions === null ? sql`` : sql`and c.dimensions = ${ref.dimensions}::int`})`;
  return {
    ...createPgChunkStore(db),
    async vectorKey(ref) {
      if (ref.dimensions !== null) return { model: ref.model, dimensions: ref.dimensions };
      const result = await db.execute(
        sql`select dimensions from item_chunks where model = ${ref.model} limit 1`,
      );
      const row = result.rows[0] as { dimensions: unknown } | undefined;
      return row ? { model: ref.model, dimensions: Number(row.dimensions) } : null;
    },
    ensureVectorIndex: (key) => ensureVectorIndex(maintenance, key),
    vectorIndexState: (key) => vectorIndexState(db, key),
    async removeOtherModels(keep, limit) {
      const chunks = await deleteOtherModelChunks(db, keep, limit);
      return { chunks, indexes: chunks < limit ? await dropOtherVectorIndexes(maintenance, keep) : [] };
    },
    nearItems: (subjectKey, queries, itemIds, key, options) =>
      nearItems(db, subjectKey, queries, itemIds, key, options),
    async isIndexed(itemId, ref) {
      const result = await db.execute(
        sql`select ${chunkOf(ref, sql.raw("i"))} as indexed from items i where i.id = ${itemId}::uuid`,
      );
      const value = (result.rows[0] as { indexed?: unknown } | undefined)?.indexed;
      return value === true || value === "t" || value === "true";
    },
    async missing(ref, page) {
      const scan = Math.max(1, Math.min(page.scan, 10_000));
      const after = page.after ? sql`where id > ${page.after}::uuid` : sql``;
      const result = await db.execute(sql`
        with w as (select id, content_hash from items ${after} order by id limit ${scan}::int)
        select w.id, not ${chunkOf(ref, sql.raw("w"))} as missing,
          (select id from w order by id desc limit 1) as last, (select count(*) from w) as scanned
        from w order by w.id`);
      const rows = result.rows as { id: string; missing: unknown; last: string; scanned: unknown }[];
      const first = rows[0];
      return {
        itemIds: rows.filter((r) => r.missing === true || r.missing === "t").map((r) => r.id),
        nextAfter: first && Number(first.scanned) === scan ? first.last : null,
      };
    },
    async claimBackfill(ref) {
      const result = await db.execute(sql`
        insert into sweep_cursors (name, after_key) values (${BACKFILL_CLAIM}, ${backfillClaimKey(ref)})
        on conflict (name) do update set after_key = excluded.after_key, updated_at = now()
          where sweep_cursors.after_key is distinct from excluded.after_key
        returning 1`);
      return result.rows.length > 0;
    },
    async releaseBackfill(ref) {
      await db.execute(
        sql`delete from sweep_cursors where name = ${BACKFILL_CLAIM} and after_key = ${backfillClaimKey(ref)}`,
      );
    },
    async counts(workspace, ref) {
      const result = await db.execute(sql`
        select count(*) as items, count(*) filter (where ${chunkOf(ref, sql.raw("i"))}) as indexed
        from items i join workspace_members m on m.member_key = i.owner_id
        where m.workspace_id = ${workspace}`);
      const row = result.rows[0] as { items: unknown; indexed: unknown } | undefined;
      const total = Number(row?.items ?? 0);
      const indexed = Number(row?.indexed ?? 0);
      return { items: total, indexed, pending: total - indexed };
    },
  };
}
