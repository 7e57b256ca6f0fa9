/**
 * The embeddings queue's consumer, called as the runtime calls it (a message batch), with the worker's
 * real services: a write racing a delete leaves no embedding; a provider's 429 retries the message through
 * the queue with a delay (never a loop); a malformed message is acked; the daily backfill re-sends what
 * lacks embeddings.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { removeItem } from "../../src/app/items";
import type { Services } from "../../src/app/services";
import { buildServices } from "../../src/composition";
import { parseConfig } from "../../src/config/config";
import {
  runEmbeddingBackfill,
  runModelBackfillStart,
  runVectorIndexUpkeep,
} from "../../src/cron/cron-sweep-handler";
import { consumeEmbedBatch } from "../../src/cron/embed-consumer";
import { createDb, createMaintenanceDb } from "../../src/db/client";
import { ensureVectorIndex, vectorIndexName } from "../../src/db/item-chunk-index";
import { EMBED_MAX_ITEMS, type EmbedMessage } from "../../src/domain/item-embedding";
import type { Env } from "../../src/env";
import { newUserId } from "../support/auth";
import { fakeLlm } from "../support/fake-llm-control";
import { chunkCount, db } from "./support";

const QUEUE = "unified-memory-embed";

/** Items stored without going through ingest's enqueue (the store directly), so only the test embeds them. */
async function stored(services: Services, owner: string, bodies: string[]): Promise<string[]> {
  const { outcomes } = await services.items.upsert(
    owner,
    bodies.map((body, i) => ({
      source: "notes",
      externalId: `c-${i}`,
      kind: "note" as const,
      title: "Note",
      body,
      occurredAt: new Date(),
    })),
  );
  return outcomes.map((o) => o.id);
}

/** A batch as the runtime hands it to the consumer, recording what the consumer does with each message. */
async function consume(services: Services, bodies: unknown[]) {
  const result = {
    explicitAcks: [] as string[],
    retryMessages: [] as { msgId: string; delaySeconds?: number }[],
  };
  const messages = bodies.map((body, i) => ({
    id: `m-${i}`,
    timestamp: new Date(),
    attempts: 1,
    body,
    ack: () => void result.explicitAcks.push(`m-${i}`),
    retry: (options?: QueueRetryOptions) =>
      void result.retryMessages.push({ msgId: `m-${i}`, delaySeconds: options?.delaySeconds }),
  }));
  const batch = {
    queue: QUEUE,
    messages,
    ackAll: () => {},
    retryAll: () => {},
  } as unknown as MessageBatch<unknown>;
  const report = await consumeEmbedBatch(batch, services);
  return { report, result };
}

describe("the embeddings consumer", () => {
  it("writes nothing for an item deleted while it was being embedded, whichever commits first", async () => {
    const services = buildServices(env as Env);
    const owner = newUserId("race");
    const [before, after] = await stored(services, owner, ["Deleted before the write.", "Deleted after it."]);
    const racing: Services = {
      ...services,
      embeddings: {
        ...services.embeddings,
        async write(key, items) {
          // Both items go in one statement: one deleted just before it, the other just after.
          expect(items.map((i) => i.itemId)).toEqual([before, after]);
          await removeItem(services, owner, before!);
          const written = await services.embeddings.write(key, items);
          await removeItem(services, owner, after!);
          return written;
        },
      },
    };
    const { report, result } = await consume(racing, [{ itemIds: [before, after] }]);
    expect(report).toMatchObject({ written: 1, skipped: 1 });
    expect(result.explicitAcks).toEqual(["m-0"]);
    expect(await chunkCount([before!, after!])).toBe(0);
  });

  it("retries a message through the queue after the provider's 429, with at least its Retry-After", async () => {
    const services = buildServices(env as Env);
    const owner = newUserId("limited");
    const marker = `throttled-${crypto.randomUUID()}`;
    const [id] = await stored(services, owner, [`A note that hits the limit ${marker}.`]);
    const fault = await fakeLlm().fault(
      marker,
      { kind: "rate_limit", retryAfterSeconds: 90 },
      { role: "embedding" },
    );
    const { report, result } = await consume(services, [{ itemIds: [id] }]);
    expect(report).toMatchObject({ retried: 1, written: 0 });
    expect(result.retryMessages).toEqual([{ msgId: "m-0", delaySeconds: 90 }]);
    expect(await chunkCount([id!])).toBe(0);
    await fault.remove();
    // The retried delivery succeeds.
    expect((await consume(services, [{ itemIds: [id] }])).report).toMatchObject({ written: 1 });
  });

  it("acks a malformed message without retrying it", async () => {
    const { report, result } = await consume(buildServices(env as Env), [{ itemIds: ["not-a-uuid"] }, 42]);
    expect(report).toMatchObject({ malformed: 2 });
    expect(result.explicitAcks.sort()).toEqual(["m-0", "m-1"]);
    expect(result.retryMessages).toEqual([]);
  });

  it(`the daily backfill hands the items lacking embeddings to the queue, in messages of ${EMBED_MAX_ITEMS}, and not again once embedded`, async () => {
    const base = buildServices(env as Env);
    const owner = newUserId("backfill");
    const ids = await stored(base, owner, ["Never embedded one.", "Never embedded two."]);
    const sent: EmbedMessage[] = [];
    const services: Services = {
      ...base,
      embedQueue: { send: async (messages) => void sent.push(...messages) },
    };
    const sentIds = () => sent.flatMap((m) => ("itemIds" in m ? m.itemIds : []));
    await services.embedBackfillCursor.save(null);
    const report = await runEmbeddingBackfill(services);
    expect(report).toMatchObject({ complete: true, resumeAfter: null });
    expect(sentIds()).toEqual(expect.arrayContaining(ids));
    expect(sent.every((m) => "itemIds" in m && m.itemIds.length <= EMBED_MAX_ITEMS)).toBe(true);
    // Once embedded, they are not sent again.
    await consume(services, [{ itemIds: ids }]);
    sent.length = 0;
    await runEmbeddingBackfill(services);
    expect(sentIds()).not.toEqual(expect.arrayContaining([ids[0]]));
  });

  it("a model switched on for existing items queues them at once and indexes them all, without the cron", async () => {
    const base = buildServices(env as Env);
    const fake = base.embedder!;
    // A model of its own: the items below exist before it is configured.
    const model = `openai:fake-embedding-${crypto.randomUUID().slice(0, 8)}`;
    const owner = newUserId("switched-on");
    const ids = await stored(base, owner, ["Written before any model.", "Also before.", "And a third."]);
    // The queue as the runtime runs it: what is sent is consumed, until nothing is left.
    const queued: EmbedMessage[] = [];
    const services: Services = {
      ...base,
      embedder: {
        model,
        dimensions: fake.dimensions,
        maxInputTokens: fake.maxInputTokens,
        embed: (texts, purpose, options) => fake.embed(texts, purpose, options),
      },
      embedQueue: { send: async (messages) => void queued.push(...messages) },
    };
    const ref = { model, dimensions: fake.dimensions };
    expect(await Promise.all(ids.map((id) => services.embeddings.isIndexed(id!, ref)))).toEqual([
      false,
      false,
      false,
    ]);

    expect(await runModelBackfillStart(services)).toBe(true);
    expect(queued).toEqual([{ backfill: { model, after: null } }]);
    // Started once: a second isolate's first request finds the claim and does nothing.
    expect(await runModelBackfillStart(services)).toBe(false);
    expect(await services.embeddings.claimBackfill(ref)).toBe(false);

    // One message a batch, to see the index wait for the backfill's last message.
    // The model's partial index names it in its predicate.
    const indexExists = async () =>
      (
        await db.execute(
          sql`select 1 from pg_indexes where tablename = 'item_chunks' and indexdef like ${`%${model}%`}`,
        )
      ).rows.length > 0;
    const key = { model, dimensions: 256 };
    expect(await services.embeddings.vectorIndexState(key)).toBe("missing");
    const consumed: EmbedMessage[] = [];
    while (queued.length > 0) {
      const message = queued.shift()!;
      consumed.push(message);
      const { report } = await consume(services, [message]);
      expect(report).toMatchObject({ retried: 0, dropped: 0, malformed: 0 });
      if ("itemIds" in message) {
        // The backfill's items are bulk: their vectors are written, the model's index waits.
        expect(message.bulk).toBe(true);
        expect(report).toMatchObject({ written: message.itemIds.length, index: "deferred" });
        expect(await indexExists()).toBe(false);
      }
    }
    expect(consumed.at(-1)).toEqual({ index: { model } });
    expect(consumed.filter((m) => "itemIds" in m).length).toBeGreaterThan(0);
    expect(await indexExists()).toBe(true);
    expect(await services.embeddings.vectorIndexState(key)).toBe("valid");
    expect(await Promise.all(ids.map((id) => services.embeddings.isIndexed(id!, ref)))).toEqual([
      true,
      true,
      true,
    ]);
    // A step, or an index message, of a model no longer configured is dropped.
    const { report } = await consume(services, [
      { backfill: { model: "openai:gone", after: null } },
      { index: { model: "openai:gone" } },
    ]);
    expect(report).toMatchObject({ dropped: 2, enqueued: 0, index: "none" });
  });

  it("the first vectors bring the model's HNSW index; the daily upkeep rebuilds it and removes a previous model's vectors and index", async () => {
    const services = buildServices(env as Env);
    const owner = newUserId("upkeep");
    const [id] = await stored(services, owner, ["A note whose vectors need an index."]);
    expect((await consume(services, [{ itemIds: [id] }])).report).toMatchObject({ written: 1 });
    const dims = await db.execute(
      sql`select dimensions from item_chunks where item_id = ${id}::uuid limit 1`,
    );
    const current = await vectorIndexName({
      model: "openai:fake-embedding",
      dimensions: Number((dims.rows[0] as { dimensions: unknown }).dimensions),
    });
    const indexes = async () =>
      (
        await db.execute(
          sql`select indexname from pg_indexes where tablename = 'item_chunks' and indexname like 'item_chunks_hnsw_%'`,
        )
      ).rows.map((r) => (r as { indexname: string }).indexname);
    expect(await indexes()).toContain(current);

    // A previous model's vectors and index; the current model's index lost.
    const old = { model: "openai:previous-model", dimensions: 3 };
    await db.execute(sql`
      insert into item_chunks (item_id, model, dimensions, chunk_index, content_hash, start_offset, end_offset, snippet, embedding)
      select id, ${old.model}, 3, 0, content_hash, 0, 1, 'x', '[1,0,0]'::vector from items where id = ${id}::uuid`);
    const previous = (await ensureVectorIndex(db, old)).name;
    await db.execute(sql.raw(`drop index ${current}`));

    await runVectorIndexUpkeep(services);
    const after = await indexes();
    expect(after).toContain(current);
    expect(after).not.toContain(previous);
    const left = await db.execute(sql`select count(*)::int as n from item_chunks where model = ${old.model}`);
    expect((left.rows[0] as { n: number }).n).toBe(0);
    expect(await chunkCount([id!])).toBeGreaterThan(0);
  });

  it("an index build may outlast a request's deadline, which still holds for every other statement", async () => {
    const config = parseConfig(env);
    const short = { ...config, queryTimeoutMs: 300 };
    try {
      await expect(createDb(short).execute(sql`select pg_sleep(0.6)`)).rejects.toThrow();
      const maintenance = createMaintenanceDb(short);
      const result = await maintenance.execute(sql`select pg_sleep(0.6), 1 as done`);
      expect((result.rows[0] as { done: unknown }).done).toBe(1);
    } finally {
      createDb(config);
    }
  });

  it("acks a batch whose vectors were written even when building the model's index fails, and logs it", async () => {
    const base = buildServices(env as Env);
    const embedder = base.embedder!;
    // A model of its own, so this isolate has not built its index yet.
    const services: Services = {
      ...base,
      embedder: {
        model: `openai:fake-embedding-${crypto.randomUUID().slice(0, 8)}`,
        dimensions: embedder.dimensions,
        maxInputTokens: embedder.maxInputTokens,
        embed: (texts, purpose, options) => embedder.embed(texts, purpose, options),
      },
      embeddings: {
        ...base.embeddings,
        ensureVectorIndex: async () => {
          throw new Error("canceling statement due to statement timeout");
        },
      },
    };
    const owner = newUserId("index-fails");
    const [id] = await stored(services, owner, ["A note embedded while its index cannot be built."]);
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (line: string) => void warnings.push(String(line));
    try {
      const { report, result } = await consume(services, [{ itemIds: [id] }]);
      expect(report).toMatchObject({ written: 1, retried: 0 });
      expect(result.explicitAcks).toEqual(["m-0"]);
      expect(result.retryMessages).toEqual([]);
    } finally {
      console.warn = warn;
    }
    expect(warnings.some((w) => w.includes('"msg":"vector_index_build_failed"'))).toBe(true);
    expect(await chunkCount([id!])).toBeGreaterThan(0);
  });
});
