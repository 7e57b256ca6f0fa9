/** ChunkStore over Postgres (db/item-chunks.ts), for domain/item-embedding.ts embedItems. */
import { type ChunkStore, EMBEDDING_MAX_BODY_CHARS } from "../domain/item-embedding";
import type { Db } from "./client";
import { loadEmbeddingSources, writeItemsChunks } from "./item-chunk-writes";

export function createPgChunkStore(db: Db): ChunkStore {
  return {
    load: (itemIds) => loadEmbeddingSources(db, itemIds, EMBEDDING_MAX_BODY_CHARS),
    write: (key, items) => writeItemsChunks(db, key, items),
  };
}
