/**
 * Item chunks under concurrent writes, on PostgreSQL only (PGlite is one backend multiplexed over its
 * connections: an open transaction blocks every other one, so it cannot show a writer waiting on a row
 * lock). A chunk write waits for an update that holds the item, then writes only if the item still has the
 * content hash it was embedded from.
 */
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config";
import { createDb } from "../../src/db/client";
import { writeItemChunks } from "../../src/db/item-chunk-writes";
import { createItemStore } from "../../src/db/item-store";
import { itemChunks, items } from "../../src/db/schema";
import type { EmbeddedChunk, EmbeddingKey } from "../../src/domain/item-embedding";
import { newUserId } from "../support/auth";
import { withTransaction } from "../support/ws-transaction";

const config = parseConfig(env);
const db = createDb(config);
const store = createItemStore(db);

const modelKey = (): EmbeddingKey => ({ model: `test:${crypto.randomUUID()}`, dimensions: 3 });

const input = (externalId: string, body = `Body of ${externalId}`) => ({
  source: "notes",
  externalId,
  kind: "note" as const,
  title: `Note ${externalId}`,
  body,
  occurredAt: new Date("2026-05-01T10:00:00Z"),
});

async function ingest(owner: string, inputs: ReturnType<typeof input>[]) {
  const { outcomes } = await store.upsert(owner, inputs);
  return Promise.all(
    outcomes.map(async (o) => {
      const [row] = await db.select({ hash: items.contentHash }).from(items).where(eq(items.id, o.id));
      return { id: o.id, hash: row!.hash };
    }),
  );
}

const chunk = (index: number, embedding: number[]): EmbeddedChunk => ({
  index,
  start: 0,
  end: 10,
  snippet: `snippet ${index}`,
  embedding,
});

async function chunksOf(itemId: string, key?: EmbeddingKey) {
  const rows = await db
    .select({ model: itemChunks.model })
    .from(itemChunks)
    .where(eq(itemChunks.itemId, itemId));
  return key ? rows.filter((r) => r.model === key.model) : rows;
}

describe("chunk writes racing an update of the item", () => {
  it("waits for an update that holds the item and then writes nothing, since the item's hash changed", async () => {
    const key = modelKey();
    const [note] = await ingest(newUserId(), [input("a", "before the update")]);
    let writing: Promise<{ written: boolean }> | undefined;
    await withTransaction(config, async (tx) => {
      await tx.execute(sql`update items set body = 'after', content_hash = 'changed' where id = ${note!.id}`);
      writing = writeItemChunks(db, { ...key, itemId: note!.id, contentHash: note!.hash }, [
        chunk(0, [1, 0, 0]),
      ]);
      await untilWaitingOnLock("item_chunks");
    });
    expect(await writing).toEqual({ written: false });
    expect(await chunksOf(note!.id)).toEqual([]);
  });

  it("writes once an update that held the item rolls back", async () => {
    const key = modelKey();
    const [note] = await ingest(newUserId(), [input("a")]);
    let writing: Promise<{ written: boolean }> | undefined;
    await withTransaction(config, async (tx) => {
      await tx.execute(sql`update items set content_hash = 'changed' where id = ${note!.id}`);
      writing = writeItemChunks(db, { ...key, itemId: note!.id, contentHash: note!.hash }, [
        chunk(0, [1, 0, 0]),
      ]);
      await untilWaitingOnLock("item_chunks");
      throw new RollBack();
    }).catch((err: unknown) => {
      if (!(err instanceof RollBack)) throw err;
    });
    expect(await writing).toEqual({ written: true });
    expect(await chunksOf(note!.id, key)).toHaveLength(1);
  });
});

class RollBack extends Error {}

/** Until a statement mentioning `text` waits on a lock (bounded: 200 looks at pg_stat_activity). */
async function untilWaitingOnLock(text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await db.execute(sql`
      select count(*)::int as n from pg_stat_activity
      where wait_event_type = 'Lock' and query like ${`%${text}%`} and pid <> pg_backend_pid()`);
    if (Number((rows[0] as { n: number }).n) > 0) return;
    await scheduler.wait(25);
  }
  throw new Error(`no statement on ${text} started waiting for a lock`);
}
