/**
 * Embedding items (the work of the embeddings queue consumer, and of a backfill): read each item's
 * current content, chunk it for the model, embed every chunk, and store the chunks under the content hash
 * they were made from. The store writes an item's chunks only if the item still has that hash, so an item
 * updated or deleted meanwhile is skipped (its update brings it back; a delete needs nothing).
 *
 * Generic over its ports (Embedder, ChunkStore): db/pg-chunk-store.ts is the Postgres one.
 */
import { CHARS_PER_TOKEN, CHUNK_MAX_PER_ITEM, CHUNK_MAX_TOKENS, chunkItem } from "./chunks";
import { type Embedder, EmbeddingError } from "./embeddings";
import type { ItemKind } from "./item-schema";

/** Chunking never reads past this much of a body (CHUNK_MAX_PER_ITEM chunks of at most CHUNK_MAX_TOKENS). */
export const EMBEDDING_MAX_BODY_CHARS = CHUNK_MAX_PER_ITEM * CHUNK_MAX_TOKENS * CHARS_PER_TOKEN;
/** Items per call: a queue message's worth (up to 64 chunks each, embedded in the adapter's batches). */
export const EMBED_MAX_ITEMS = 20;

/** Which embeddings: the embedder's id and its vectors' length. */
export interface EmbeddingKey {
  model: string;
  dimensions: number;
}

/** What chunking needs of an item, and the content hash its chunks are stored under. */
export interface EmbeddingSource {
  id: string;
  kind: ItemKind;
  title: string | null;
  /** At least the body's first EMBEDDING_MAX_BODY_CHARS characters. */
  body: string;
  contentHash: string;
}

export interface EmbeddedChunk {
  index: number;
  /** [start, end) in the body, UTF-16 code units (domain/chunks.ts). */
  start: number;
  end: number;
  snippet: string;
  embedding: number[];
}

export interface ChunkStore {
  /** The items that still exist, in any order. */
  load(itemIds: string[]): Promise<EmbeddingSource[]>;
  /** Replaces the item's chunks of `key` if it still has `contentHash`; `written: false` otherwise. */
  write(
    item: { itemId: string; contentHash: string },
    key: EmbeddingKey,
    chunks: EmbeddedChunk[],
  ): Promise<{ written: boolean }>;
}

export interface EmbedOutcome {
  /** Items whose chunks were written. */
  written: string[];
  /** Items that changed or went away between reading and writing (nothing written). */
  skipped: string[];
  /** Items that did not exist any more when read. */
  missing: string[];
}

/**
 * Embeds up to EMBED_MAX_ITEMS items. An EmbeddingError (rate limit, outage) propagates before anything
 * is written for the items not yet written: the caller retries the same ids, which is idempotent.
 */
export async function embedItems(
  itemIds: string[],
  deps: { embedder: Embedder; chunks: ChunkStore },
  options: { signal?: AbortSignal } = {},
): Promise<EmbedOutcome> {
  const ids = [...new Set(itemIds)];
  if (ids.length > EMBED_MAX_ITEMS)
    throw new Error(`at most ${EMBED_MAX_ITEMS} items a call, got ${ids.length}`);
  const sources = ids.length === 0 ? [] : await deps.chunks.load(ids);
  const found = new Set(sources.map((s) => s.id));
  const outcome: EmbedOutcome = { written: [], skipped: [], missing: ids.filter((id) => !found.has(id)) };
  if (sources.length === 0) return outcome;

  const chunked = sources.map((source) => ({
    source,
    chunks: chunkItem(source, deps.embedder.maxInputTokens),
  }));
  const texts = chunked.flatMap(({ chunks }) => chunks.map((c) => c.text));
  const vectors = await deps.embedder.embed(texts, "document", options);
  const dimensions = vectors[0]?.length ?? 0;
  if (deps.embedder.dimensions !== null && dimensions !== deps.embedder.dimensions) {
    throw new EmbeddingError(
      "embedding_bad_response",
      `${deps.embedder.model}: vectors of ${dimensions} dimensions, expected ${deps.embedder.dimensions}`,
      false,
    );
  }
  const key = { model: deps.embedder.model, dimensions };
  let next = 0;
  for (const { source, chunks } of chunked) {
    const embedded = chunks.map(
      (c): EmbeddedChunk => ({
        index: c.index,
        start: c.start,
        end: c.end,
        snippet: c.snippet,
        embedding: vectors[next++]!,
      }),
    );
    const { written } = await deps.chunks.write(
      { itemId: source.id, contentHash: source.contentHash },
      key,
      embedded,
    );
    (written ? outcome.written : outcome.skipped).push(source.id);
  }
  return outcome;
}
