/**
 * The related-evidence check by meaning, with the fake LLM's embeddings (hashed word features: for them,
 * "near" means sharing words) and a hand-written NearItems over each item's chunk texts: the threshold,
 * the bounds, and that a failure answers nothing once, without retrying.
 */
import { describe, expect, it } from "vitest";
import {
  combineFinders,
  linkedEvidenceFinder,
  RELATED_LIMITS,
  type RelatedEvidenceQuery,
} from "../../src/agent/related-evidence";
import { SEMANTIC_MIN_SIMILARITY, semanticEvidenceFinder } from "../../src/agent/semantic-evidence";
import { chunkItem } from "../../src/domain/chunks";
import { type Embedder, EmbeddingError, type EmbeddingPurpose } from "../../src/domain/embeddings";
import type { NearItem, NearItems, NearItemsOptions } from "../../src/domain/item-embedding";
import type { Item } from "../../src/domain/items";
import { cosine, fakeEmbedding } from "../support/node/fake-llm/embedding-vectors";

let n = 0;
const item = (body: string, overrides: Partial<Item> = {}): Item => ({
  id: `item-${++n}`,
  ownerId: "ada",
  source: "gmail",
  externalId: `x-${n}`,
  kind: "email",
  title: null,
  body,
  author: null,
  participants: [],
  occurredAt: new Date("2025-03-01T10:00:00Z"),
  createdAt: new Date("2025-03-01T10:00:00Z"),
  updatedAt: new Date("2025-03-01T10:00:00Z"),
  url: null,
  metadata: {},
  sharedWith: [],
  ...overrides,
});

/** The fake LLM's embedder, counting its calls; `fail` makes every call throw. */
class FakeEmbedder implements Embedder {
  readonly model = "openai:fake-embedding";
  readonly dimensions = 256;
  readonly maxInputTokens = 512;
  calls: { texts: string[]; purpose: EmbeddingPurpose }[] = [];
  constructor(private readonly fail: Error | null = null) {}
  async embed(texts: string[], purpose: EmbeddingPurpose): Promise<number[][]> {
    this.calls.push({ texts, purpose });
    if (this.fail) throw this.fail;
    return texts.map((t) => fakeEmbedding(t));
  }
}

/** NearItems over items chunked and embedded as the embeddings queue would (chunkItem, fakeEmbedding). */
class FakeNearItems implements NearItems {
  calls: { queries: number; itemIds: readonly string[]; options: NearItemsOptions }[] = [];
  constructor(
    private readonly items: Item[],
    private readonly fail: Error | null = null,
  ) {}
  async nearItems(
    _subjectKey: string,
    queries: readonly (readonly number[])[],
    itemIds: readonly string[],
    _key: unknown,
    options: NearItemsOptions,
  ): Promise<NearItem[]> {
    this.calls.push({ queries: queries.length, itemIds, options });
    if (this.fail) throw this.fail;
    const chunks = this.items
      .filter((i) => itemIds.includes(i.id))
      .map((i) => ({
        id: i.id,
        vectors: chunkItem(i, 512)
          .slice(0, options.chunksPerItem)
          .map((c) => fakeEmbedding(c.text)),
      }));
    return queries.flatMap((q, query) =>
      chunks
        .map(({ id, vectors }) => ({
          query,
          itemId: id,
          similarity: Math.max(...vectors.map((v) => cosine(q, v))),
        }))
        .filter((h) => h.similarity >= options.minSimilarity)
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, options.perQuery),
    );
  }
}

const cutover = item("We agreed: the Kestrel cut-over is on 3 March.", { title: "Kestrel cut-over date" });
const statement = { index: 3, text: "The Kestrel cut-over is on 3 March", itemIds: [cutover.id] };
const moved = item("Update: the Kestrel cut-over moved to 10 March.", { title: "Heads-up" });
const oneWord = item("Kestrel dashboards look good.", { title: "Dashboards" });
const unrelated = item("The new ramen place near the office opened today.", { title: "Lunch" });

const query = (changed: Item[], statements = [statement]): RelatedEvidenceQuery => ({
  subjectKey: "ada",
  statements,
  cited: new Map([[cutover.id, cutover]]),
  changed,
});

function finder(items: Item[], options: { embedder?: FakeEmbedder; near?: FakeNearItems } = {}) {
  const embedder = options.embedder ?? new FakeEmbedder();
  const near = options.near ?? new FakeNearItems(items);
  const failures: unknown[] = [];
  const semantic = semanticEvidenceFinder({
    embedder,
    chunks: near,
    onFailure: (error) => failures.push(error),
  });
  return { semantic, embedder, near, failures };
}

const similarity = (a: string, b: Item) =>
  cosine(fakeEmbedding(a), fakeEmbedding(chunkItem(b, 512)[0]!.text));

describe("the semantic related-evidence finder", () => {
  it("sits its threshold between a restatement with another date and a text sharing one word (fake embeddings)", () => {
    // The fake's "meaning" is shared words: the move restates "Kestrel cut-over ... March".
    expect(similarity(statement.text, moved)).toBeGreaterThanOrEqual(SEMANTIC_MIN_SIMILARITY + 0.1);
    expect(similarity(statement.text, oneWord)).toBeLessThan(SEMANTIC_MIN_SIMILARITY - 0.1);
    expect(similarity(statement.text, unrelated)).toBeLessThan(0.1);
  });

  it("relates a changed item whose chunk is near the statement, by meaning alone, and not the others", async () => {
    const f = finder([cutover, moved, oneWord, unrelated]);
    const found = await f.semantic.findRelated(query([unrelated, oneWord, moved]));
    expect(found).toEqual(new Map([[3, [{ itemId: moved.id, via: "semantic" }]]]));
    // One embedding call for every statement, as queries; one read for all of them.
    expect(f.embedder.calls).toEqual([{ texts: [statement.text], purpose: "query" }]);
    expect(f.near.calls).toHaveLength(1);
    expect(f.near.calls[0]!.options).toEqual({
      minSimilarity: SEMANTIC_MIN_SIMILARITY,
      perQuery: RELATED_LIMITS.perStatement + 1,
      chunksPerItem: RELATED_LIMITS.semanticChunksPerItem,
    });
    expect(f.failures).toEqual([]);
  });

  it("never relates a statement to an item it cites", async () => {
    const f = finder([cutover, moved]);
    expect(await f.semantic.findRelated(query([cutover]))).toEqual(new Map());
    // The cited item is near, but is left out; the next one still fills the statement's relations.
    expect(await f.semantic.findRelated(query([cutover, moved]))).toEqual(
      new Map([[3, [{ itemId: moved.id, via: "semantic" }]]]),
    );
  });

  it("asks nothing without carried statements or changed items", async () => {
    const f = finder([moved]);
    expect(await f.semantic.findRelated(query([moved], []))).toEqual(new Map());
    expect(await f.semantic.findRelated(query([]))).toEqual(new Map());
    expect(f.embedder.calls).toEqual([]);
    expect(f.near.calls).toEqual([]);
  });

  it("is bounded: statements embedded, items compared, items per statement and statements related", async () => {
    const changed = Array.from({ length: 130 }, (_, i) =>
      item(`Update ${i}: the Kestrel cut-over moved to ${i} March.`, { title: "Heads-up" }),
    );
    const statements = Array.from({ length: 100 }, (_, i) => ({ ...statement, index: i }));
    const f = finder([cutover, ...changed]);
    const found = await f.semantic.findRelated(query(changed, statements));
    expect(f.embedder.calls[0]!.texts).toHaveLength(RELATED_LIMITS.semanticStatements);
    expect(f.near.calls[0]!.itemIds).toEqual(changed.slice(0, RELATED_LIMITS.semanticItems).map((c) => c.id));
    expect(found.size).toBe(RELATED_LIMITS.statements);
    expect([...found.keys()]).toEqual(statements.slice(0, RELATED_LIMITS.statements).map((s) => s.index));
    for (const relations of found.values()) expect(relations).toHaveLength(RELATED_LIMITS.perStatement);
  });

  it("answers nothing when the embedder fails, tells it once, and does not retry", async () => {
    const error = new EmbeddingError("embedding_rate_limited", "slow down", true, 30);
    const f = finder([moved], { embedder: new FakeEmbedder(error) });
    expect(await f.semantic.findRelated(query([moved]))).toEqual(new Map());
    expect(f.failures).toEqual([error]);
    expect(f.embedder.calls).toHaveLength(1);
    expect(f.near.calls).toEqual([]);
  });

  it("answers nothing when the read fails, tells it once, and does not retry", async () => {
    const error = new Error("connection reset");
    const f = finder([moved], { near: new FakeNearItems([moved], error) });
    expect(await f.semantic.findRelated(query([moved]))).toEqual(new Map());
    expect(f.failures).toEqual([error]);
    expect(f.near.calls).toHaveLength(1);
  });

  it("ranks after the item graph's relations when combined, and a failure leaves the graph's answer whole", async () => {
    const reply = item("Noted, see you then.");
    const graph = linkedEvidenceFinder({
      edgesOf: async () => [{ fromId: reply.id, toId: cutover.id, kind: "reply" }],
      getMany: async () => [],
    });
    const both = finder([cutover, moved, reply]);
    const combined = combineFinders(graph, both.semantic);
    expect(await combined.findRelated(query([moved, reply]))).toEqual(
      new Map([
        [
          3,
          [
            { itemId: reply.id, via: "link" },
            { itemId: moved.id, via: "semantic" },
          ],
        ],
      ]),
    );
    const failing = finder([moved], { embedder: new FakeEmbedder(new Error("down")) });
    expect(await combineFinders(graph, failing.semantic).findRelated(query([moved, reply]))).toEqual(
      new Map([[3, [{ itemId: reply.id, via: "link" }]]]),
    );
  });

  it("keeps the combined answer to the first statements of the draft, however many each finder relates", async () => {
    const many = (from: number) =>
      new Map(
        Array.from({ length: 20 }, (_, i) => [
          from + i,
          [{ itemId: `i${from + i}`, via: "semantic" as const }],
        ]),
      );
    const statements = Array.from({ length: 40 }, (_, i) => ({ ...statement, index: i }));
    const found = await combineFinders(
      { findRelated: async () => many(20) },
      { findRelated: async () => many(0) },
    ).findRelated(query([], statements));
    expect([...found.keys()]).toEqual(statements.slice(0, RELATED_LIMITS.statements).map((s) => s.index));
  });
});
