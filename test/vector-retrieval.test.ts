/**
 * The pieces of the vector channel together, against the real database and the fake embeddings server
 * through the OpenAI SDK: ingest, embedItems (chunk, embed, write), the model's HNSW index, and a query
 * embedded and searched under the access rule. What the queue consumer and the search fusion will call.
 */
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { ensureVectorIndex } from "../src/db/item-chunk-index";
import { searchByVector } from "../src/db/item-chunk-search";
import { createItemStore } from "../src/db/item-store";
import { createPgChunkStore } from "../src/db/pg-chunk-store";
import { createPgEmbeddingIndex } from "../src/db/pg-embedding-index";
import { itemChunks } from "../src/db/schema";
import { embedItems } from "../src/domain/item-embedding";
import type { ItemInput } from "../src/domain/item-schema";
import { createOpenAiEmbedder } from "../src/embeddings/openai";
import { newUserId } from "./support/auth";
import { fakeLlm } from "./support/fake-llm-control";

const db = createDb(parseConfig(env));
const store = createItemStore(db);
const chunks = createPgChunkStore(db);

/** A model id of this test run's own, so its chunks and index are nobody else's. */
const embedder = createOpenAiEmbedder({
  model: `fake-embedding-${crypto.randomUUID().slice(0, 8)}`,
  apiKey: "test-key",
  baseUrl: `${fakeLlm().url}/openai/v1`,
  dimensions: 128,
  timeoutMs: 10_000,
});
const key = { model: embedder.model, dimensions: 128 };

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i} is about ${topic} and nothing else worth noting.`).join(
    "\n\n",
  );

const doc = (externalId: string, title: string, body: string): ItemInput => ({
  source: "docs",
  externalId,
  kind: "doc",
  title,
  body,
  occurredAt: new Date("2026-06-01T09:00:00Z"),
});

describe("the vector channel, end to end", () => {
  it("finds a long document by a passage deep in its body, through its best chunk, for its owner only", async () => {
    const owner = newUserId("vec");
    const stranger = newUserId("vec-other");
    const plan = `${filler("office plants", 30)}\n\nThe ledger cut-over is planned for Friday night; Ben owns the rollback.\n\n${filler("the holiday rota", 30)}`;
    const { outcomes } = await store.upsert(owner, [
      doc("plan", "Quarter notes", plan),
      doc("menu", "Lunch menu", filler("soup and bread", 5)),
      doc("trip", "Offsite travel", filler("train tickets", 5)),
    ]);
    const ids = outcomes.map((o) => o.id);
    const [theirs] = (await store.upsert(stranger, [doc("x", "Cutover", "The ledger cutover for Friday.")]))
      .outcomes;

    // Written in the order the database answers: compared as a set.
    const embedded = await embedItems(ids, { embedder, chunks });
    expect({ ...embedded, written: [...embedded.written].sort() }).toEqual({
      written: [...ids].sort(),
      skipped: [],
      missing: [],
    });
    await embedItems([theirs!.id], { embedder, chunks });
    await ensureVectorIndex(db, key);

    const [query] = await embedder.embed(["when is the ledger cutover?"], "query");
    const hits = await searchByVector(db, owner, query!, key, { limit: 3 });
    expect(hits.map((h) => h.itemId)).toEqual([ids[0], expect.any(String), expect.any(String)]);
    // The best chunk is the one whose span holds the passage (the snippet is the span's beginning).
    expect(hits[0]!.chunkIndex).toBeGreaterThan(0);
    const [span] = await db
      .select({ start: itemChunks.startOffset, end: itemChunks.endOffset, snippet: itemChunks.snippet })
      .from(itemChunks)
      .where(
        and(
          eq(itemChunks.itemId, ids[0]!),
          eq(itemChunks.model, key.model),
          eq(itemChunks.chunkIndex, hits[0]!.chunkIndex),
        ),
      );
    expect(plan.slice(span!.start, span!.end)).toContain("The ledger cut-over is planned for Friday night");
    expect(hits[0]!.snippet).toBe(span!.snippet);
    expect(hits.map((h) => h.itemId)).not.toContain(theirs!.id);

    // Once embedded for their current content, the backfill does not list them again.
    const page = await createPgEmbeddingIndex(db).missing(key, { after: null, scan: 10_000 });
    expect(page.itemIds).not.toContain(ids[0]);
  });

  it("skips an item whose content changed during its embedding, and embeds its new content next time", async () => {
    const owner = newUserId("vec");
    const [item] = (await store.upsert(owner, [doc("note", "Note", "First version about invoices.")]))
      .outcomes;
    const changing = {
      load: chunks.load,
      async write(...args: Parameters<typeof chunks.write>) {
        // The update commits between the read and the write.
        await store.upsert(owner, [doc("note", "Note", "Second version about payroll.")]);
        return chunks.write(...args);
      },
    };
    expect(await embedItems([item!.id], { embedder, chunks: changing })).toEqual({
      written: [],
      skipped: [item!.id],
      missing: [],
    });
    expect(await embedItems([item!.id], { embedder, chunks })).toMatchObject({ written: [item!.id] });
    const [query] = await embedder.embed(["payroll"], "query");
    const [hit] = await searchByVector(db, owner, query!, key);
    expect(hit).toMatchObject({ itemId: item!.id, snippet: "Second version about payroll." });
  });
});
