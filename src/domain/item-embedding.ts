/**
 * Embedding items (the work of the embeddings queue consumer, and of a backfill): read each item's
 * current content, chunk it for the model, embed every chunk, and store the chunks under the content hash
 * they were made from. The store writes an item's chunks only if the item still has that hash, so an item
 * updated or deleted meanwhile is skipped (its update brings it back; a delete needs nothing).
 *
 * Generic over its ports (Embedder, ChunkStore): db/pg-chunk-store.ts is the Postgres one.
 */

import { batchesOf } from "./batches";
import { CHARS_PER_TOKEN, CHUNK_MAX_PER_ITEM, CHUNK_MAX_TOKENS, chunkItem } from "./chunks";
import { type Embedder, EmbeddingError } from "./embeddings";
import type { ItemKind } from "./item-schema";

/** Chunking never reads past this much of a body (CHUNK_MAX_PER_ITEM chunks of at most CHUNK_MAX_TOKENS). */
export const EMBEDDING_MAX_BODY_CHARS = CHUNK_MAX_PER_ITEM * CHUNK_MAX_TOKENS * CHARS_PER_TOKEN;
/**
 * Items per call: a queue message's worth (up to 64 chunks each, embedded in the adapter's batches and
 * written in statements of at most EMBED_WRITE_MAX_CHUNKS chunks). 100 ids are about 4 KB of a message.
 */
export const EMBED_MAX_ITEMS = 100;
/**
 * Chunks per write statement. Each vector's insert into the model's HNSW index is most of a write's cost
 * (1.3 ms a vector at 10,000 vectors on this 2-core machine, and 10-40 ms at 100,000 under a load average of
 * 16), so a statement must stay well inside the database deadline (DATABASE_QUERY_TIMEOUT_MS, 4 s by
 * default): at 500 and at 100 chunks some statements timed out under load and their messages were retried.
 */
export const EMBED_WRITE_MAX_CHUNKS = 50;

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
  /**
   * Replaces each item's chunks of `key` with its `chunks` if it still has its `contentHash`, in one
   * round trip; answers the ids written (the others changed or went away meanwhile).
   */
  write(key: EmbeddingKey, items: ItemChunks[]): Promise<{ written: string[] }>;
}

/** One item's new chunks, made from its content at `contentHash`. */
export interface ItemChunks {
  itemId: string;
  contentHash: string;
  chunks: EmbeddedChunk[];
}

/** Which model's embeddings: its id, and its vectors' length when known before its first answer. */
export interface EmbeddingModelRef {
  model: string;
  dimensions: number | null;
}

/** Where an item stands for semantic search with the configured model. */
export type SemanticIndexState = "indexed" | "pending" | "not_configured";

export interface EmbeddingCounts {
  /** Items of the workspace. */
  items: number;
  /** Items with chunks of the model for their current content. */
  indexed: number;
  /** The others: waiting for the queue (or the daily backfill). */
  pending: number;
}

/** One query's near item: the cosine similarity of its best chunk (1 same direction, -1 opposite). */
export interface NearItem {
  /** The query's index in the list asked about. */
  query: number;
  itemId: string;
  similarity: number;
}

export interface NearItemsOptions {
  /** Only items whose best chunk is at least this similar to the query. */
  minSimilarity: number;
  /** Items answered per query, best first. */
  perQuery: number;
  /** Chunks read per item: its first ones (chunk_index below this). */
  chunksPerItem: number;
}

/** Which of a few given items are near each of a few query vectors (the related-evidence check's read). */
export interface NearItems {
  /**
   * In one read: for each query vector, the items among `itemIds` that the subject may see whose best
   * current chunk of `key` (of their first `chunksPerItem`) is at least `minSimilarity` similar to it,
   * best first, at most `perQuery` a query. Exact: every distance of those chunks is computed, so the
   * caller bounds the queries and the items.
   */
  nearItems(
    subjectKey: string,
    queries: readonly (readonly number[])[],
    itemIds: readonly string[],
    key: EmbeddingKey,
    options: NearItemsOptions,
  ): Promise<NearItem[]>;
}

/** The embedding side of the item store: chunks, what is missing, counts, and near items. */
export interface EmbeddingIndex extends ChunkStore, NearItems {
  /** The item has chunks of `ref` for its current content. */
  isIndexed(itemId: string, ref: EmbeddingModelRef): Promise<boolean>;
  /**
   * A bounded page of the items (of every workspace) lacking chunks of `ref` for their current content,
   * scanning at most `scan` items by id after `after`; `nextAfter` null at the end.
   */
  missing(
    ref: EmbeddingModelRef,
    page: { after: string | null; scan: number },
  ): Promise<{ itemIds: string[]; nextAfter: string | null }>;
  counts(workspace: string, ref: EmbeddingModelRef): Promise<EmbeddingCounts>;
  /** The model's vector size: configured, else its stored vectors' (null before the first is written). */
  vectorKey(ref: EmbeddingModelRef): Promise<EmbeddingKey | null>;
  /** Builds the model's vector index if it is missing. Idempotent; built concurrently, so writes go on. */
  ensureVectorIndex(key: EmbeddingKey): Promise<{ name: string; created: boolean }>;
  /** Where the model's vector index stands (invalid: a build was interrupted; the next one replaces it). */
  vectorIndexState(key: EmbeddingKey): Promise<VectorIndexState>;
  /**
   * Records `ref` as the model whose backfill has started; true when it was not already (this caller is
   * the one to start it: atomic, so of several isolates starting at once only one does).
   */
  claimBackfill(ref: EmbeddingModelRef): Promise<boolean>;
  /** Forgets the claim (its backfill could not be started), so the next caller starts it. */
  releaseBackfill(ref: EmbeddingModelRef): Promise<void>;
  /** Removes up to `limit` vectors of other models (or sizes), and their indexes once none are left. */
  removeOtherModels(keep: EmbeddingKey, limit: number): Promise<OtherModelsRemoved>;
}

export type VectorIndexState = "valid" | "building" | "invalid" | "missing";

export interface OtherModelsRemoved {
  chunks: number;
  indexes: string[];
}

/** An embeddings-queue message: items to embed, the next step of a model's backfill, or its index. */
export type EmbedMessage = EmbedItemsMessage | EmbedBackfillMessage | EmbedIndexMessage;

/** Items whose content changed (or that lack the model's vectors), at most EMBED_MAX_ITEMS. */
export interface EmbedItemsMessage {
  itemIds: string[];
  /**
   * Sent by a model's backfill: the model's vector index waits for the backfill's EmbedIndexMessage, so that
   * it is built once over all the vectors instead of taking them one insert at a time (a sixth of the cost).
   */
  bulk?: true;
}

/** A model's backfill sent its last items: build the model's vector index now (it waited for them). */
export interface EmbedIndexMessage {
  index: { model: string };
}

/**
 * A step of the backfill that starts when a model is configured: page through the items lacking its
 * vectors from `after` (null: the first), send them as item messages, and send the next step. Dropped when
 * `model` is no longer the configured one.
 */
export interface EmbedBackfillMessage {
  backfill: { model: string; after: string | null };
}

/** The embeddings queue's producer; one call is one send of at most EMBED_MAX_MESSAGES_PER_SEND messages. */
export interface EmbedQueue {
  send(messages: EmbedMessage[]): Promise<void>;
}

/** Cloudflare Queues take at most 100 messages and 256 KB a send: 50 messages of 100 ids are about 200 KB. */
export const EMBED_MAX_MESSAGES_PER_SEND = 50;
export const EMBED_IDS_PER_SEND = EMBED_MAX_ITEMS * EMBED_MAX_MESSAGES_PER_SEND;

/** Ids in messages of EMBED_MAX_ITEMS, and messages in sends of EMBED_MAX_MESSAGES_PER_SEND. */
export function embedSends(itemIds: string[], options: { bulk?: boolean } = {}): EmbedItemsMessage[][] {
  const messages: EmbedItemsMessage[] = [];
  for (let i = 0; i < itemIds.length; i += EMBED_MAX_ITEMS) {
    const ids = itemIds.slice(i, i + EMBED_MAX_ITEMS);
    messages.push(options.bulk ? { itemIds: ids, bulk: true } : { itemIds: ids });
  }
  const sends: EmbedItemsMessage[][] = [];
  for (let i = 0; i < messages.length; i += EMBED_MAX_MESSAGES_PER_SEND) {
    sends.push(messages.slice(i, i + EMBED_MAX_MESSAGES_PER_SEND));
  }
  return sends;
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
  const writes: ItemChunks[] = chunked.map(({ source, chunks }) => ({
    itemId: source.id,
    contentHash: source.contentHash,
    chunks: chunks.map(
      (c): EmbeddedChunk => ({
        index: c.index,
        start: c.start,
        end: c.end,
        snippet: c.snippet,
        embedding: vectors[next++]!,
      }),
    ),
  }));
  // One statement per EMBED_WRITE_MAX_CHUNKS chunks (an item's chunks never split), not one per item.
  const groups = batchesOf(writes, {
    maxItems: EMBED_MAX_ITEMS,
    maxWeight: EMBED_WRITE_MAX_CHUNKS,
    weight: (w) => w.chunks.length,
  });
  for (const group of groups) {
    const { written } = await deps.chunks.write(key, group);
    const done = new Set(written);
    for (const { itemId } of group) (done.has(itemId) ? outcome.written : outcome.skipped).push(itemId);
  }
  return outcome;
}
