/** embedItems (domain/item-embedding.ts) with hand-written fakes of its ports: no database, no network. */
import { describe, expect, it } from "vitest";
import { chunkItem } from "../../src/domain/chunks";
import { type Embedder, EmbeddingError, type EmbeddingPurpose } from "../../src/domain/embeddings";
import {
  type ChunkStore,
  EMBED_MAX_ITEMS,
  EMBED_WRITE_MAX_CHUNKS,
  type EmbeddedChunk,
  type EmbeddingKey,
  type EmbeddingSource,
  embedItems,
  type ItemChunks,
} from "../../src/domain/item-embedding";

/** Vectors [length of the text, 1]: easy to tell apart and to check. */
class FakeEmbedder implements Embedder {
  readonly model = "fake:embedder";
  readonly calls: { texts: string[]; purpose: EmbeddingPurpose }[] = [];
  failWith: EmbeddingError | null = null;
  constructor(
    readonly maxInputTokens = 64,
    readonly dimensions: number | null = 2,
    private readonly size = 2,
  ) {}
  async embed(texts: string[], purpose: EmbeddingPurpose): Promise<number[][]> {
    this.calls.push({ texts, purpose });
    if (this.failWith) throw this.failWith;
    return texts.map((t) => [t.length, ...new Array(this.size - 1).fill(1)]);
  }
}

class FakeChunkStore implements ChunkStore {
  readonly sources = new Map<string, EmbeddingSource>();
  readonly written = new Map<string, { key: EmbeddingKey; contentHash: string; chunks: EmbeddedChunk[] }>();
  /** Items whose hash "changes" between load and write. */
  readonly changing = new Set<string>();
  add(source: EmbeddingSource): this {
    this.sources.set(source.id, source);
    return this;
  }
  async load(ids: string[]): Promise<EmbeddingSource[]> {
    return ids.flatMap((id) => (this.sources.has(id) ? [this.sources.get(id)!] : []));
  }
  /** Each write's number of items and of chunks. */
  readonly writes: number[] = [];
  readonly writtenChunks: number[] = [];
  async write(key: EmbeddingKey, items: ItemChunks[]) {
    this.writes.push(items.length);
    this.writtenChunks.push(items.reduce((n, i) => n + i.chunks.length, 0));
    const written: string[] = [];
    for (const { itemId, contentHash, chunks } of items) {
      if (this.changing.has(itemId)) continue;
      this.written.set(itemId, { key, contentHash, chunks });
      written.push(itemId);
    }
    return { written };
  }
}

const source = (id: string, body: string, title: string | null = `Title ${id}`): EmbeddingSource => ({
  id,
  kind: "doc",
  title,
  body,
  contentHash: `hash-${id}`,
});

const longBody = Array.from({ length: 40 }, (_, i) => `Sentence ${i} of a long document.`).join(" ");

describe("embedItems", () => {
  it("embeds every chunk of every item in one call and stores them under the item's content hash", async () => {
    const embedder = new FakeEmbedder();
    const store = new FakeChunkStore().add(source("a", "short")).add(source("b", longBody));
    const outcome = await embedItems(["a", "b"], { embedder, chunks: store });
    expect(outcome).toEqual({ written: ["a", "b"], skipped: [], missing: [] });
    expect(store.writes).toEqual([2]);

    const expectedB = chunkItem(store.sources.get("b")!, 64);
    expect(expectedB.length).toBeGreaterThan(2);
    expect(embedder.calls).toEqual([
      { texts: ["doc: Title a\n\nshort", ...expectedB.map((c) => c.text)], purpose: "document" },
    ]);
    expect(store.written.get("a")).toEqual({
      key: { model: "fake:embedder", dimensions: 2 },
      contentHash: "hash-a",
      chunks: [
        { index: 0, start: 0, end: 5, snippet: "short", embedding: ["doc: Title a\n\nshort".length, 1] },
      ],
    });
    expect(store.written.get("b")!.chunks).toEqual(
      expectedB.map((c) => ({
        index: c.index,
        start: c.start,
        end: c.end,
        snippet: c.snippet,
        embedding: [c.text.length, 1],
      })),
    );
  });

  it(`writes a message's items in statements of at most ${EMBED_WRITE_MAX_CHUNKS} chunks, an item's never split`, async () => {
    const store = new FakeChunkStore();
    const ids = Array.from({ length: EMBED_MAX_ITEMS }, (_, i) => `i${i}`);
    for (const id of ids) store.add(source(id, longBody));
    const chunks = ids.reduce((n, id) => n + chunkItem(store.sources.get(id)!, 64).length, 0);
    expect(chunks).toBeGreaterThan(2 * EMBED_WRITE_MAX_CHUNKS);
    const outcome = await embedItems(ids, { embedder: new FakeEmbedder(), chunks: store });
    expect(outcome.written).toEqual(ids);
    expect(store.writes.reduce((a, b) => a + b, 0)).toBe(ids.length);
    expect(store.writtenChunks.reduce((a, b) => a + b, 0)).toBe(chunks);
    expect(Math.max(...store.writtenChunks)).toBeLessThanOrEqual(EMBED_WRITE_MAX_CHUNKS);
    expect(store.writes.length).toBeLessThanOrEqual(Math.ceil(chunks / (EMBED_WRITE_MAX_CHUNKS / 2)));
  });

  it("reports items that changed before their write as skipped and vanished ones as missing", async () => {
    const store = new FakeChunkStore().add(source("a", "one")).add(source("b", "two"));
    store.changing.add("b");
    const outcome = await embedItems(["a", "b", "gone", "a"], {
      embedder: new FakeEmbedder(),
      chunks: store,
    });
    expect(outcome).toEqual({ written: ["a"], skipped: ["b"], missing: ["gone"] });
  });

  it("writes nothing when the embedder fails, and passes its error on for the caller's retry", async () => {
    const embedder = new FakeEmbedder();
    embedder.failWith = new EmbeddingError("embedding_rate_limited", "slow down", true, 3);
    const store = new FakeChunkStore().add(source("a", "one"));
    await expect(embedItems(["a"], { embedder, chunks: store })).rejects.toBe(embedder.failWith);
    expect(store.written.size).toBe(0);
  });

  it("refuses vectors of another size than the embedder's", async () => {
    const embedder = new FakeEmbedder(64, 3, 2);
    const store = new FakeChunkStore().add(source("a", "one"));
    await expect(embedItems(["a"], { embedder, chunks: store })).rejects.toMatchObject({
      code: "embedding_bad_response",
    });
    expect(store.written.size).toBe(0);
  });

  it("takes the vectors' size from the answer for a model of unknown size", async () => {
    const store = new FakeChunkStore().add(source("a", "one"));
    await embedItems(["a"], { embedder: new FakeEmbedder(64, null, 5), chunks: store });
    expect(store.written.get("a")?.key).toEqual({ model: "fake:embedder", dimensions: 5 });
  });

  it(`does nothing for no ids and refuses more than ${EMBED_MAX_ITEMS} items a call`, async () => {
    const embedder = new FakeEmbedder();
    expect(await embedItems([], { embedder, chunks: new FakeChunkStore() })).toEqual({
      written: [],
      skipped: [],
      missing: [],
    });
    expect(embedder.calls).toEqual([]);
    const ids = Array.from({ length: EMBED_MAX_ITEMS + 1 }, (_, i) => `id-${i}`);
    await expect(embedItems(ids, { embedder, chunks: new FakeChunkStore() })).rejects.toThrow(
      `at most ${EMBED_MAX_ITEMS}`,
    );
  });
});
