/**
 * Item chunks in the real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): writes fenced by the
 * item's content hash, the cascade, other models' rows, backfill pages, the per-model HNSW index and the
 * vector search under the access rule. Each test embeds under a model id of its own, so tests running at
 * the same time never see each other's chunks.
 */
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { ensureVectorIndex, vectorIndexName } from "../src/db/item-chunk-index";
import {
  nearItems,
  searchByVector,
  type VectorSearchOptions,
  vectorSearchQuery,
  vectorSearchSettings,
} from "../src/db/item-chunk-search";
import {
  deleteOtherModelChunks,
  loadEmbeddingSources,
  writeItemChunks,
  writeItemsChunks,
} from "../src/db/item-chunk-writes";
import { createItemStore } from "../src/db/item-store";
import { createPgEmbeddingIndex } from "../src/db/pg-embedding-index";
import { itemChunks, items } from "../src/db/schema";
import type { EmbeddedChunk, EmbeddingKey, NearItem } from "../src/domain/item-embedding";
import type { ItemInput } from "../src/domain/item-schema";
import { teamKey, userKey } from "../src/domain/workspaces";
import { newUserId } from "./support/auth";
import { workspaceStore } from "./support/workspaces";

const config = parseConfig(env);
const db = createDb(config);
const store = createItemStore(db);

const modelKey = (dimensions = 3): EmbeddingKey => ({ model: `test:${crypto.randomUUID()}`, dimensions });

const input = (externalId: string, overrides: Partial<ItemInput> = {}): ItemInput => ({
  source: "notes",
  externalId,
  kind: "note",
  title: `Note ${externalId}`,
  body: `Body of ${externalId}`,
  occurredAt: new Date("2026-05-01T10:00:00Z"),
  ...overrides,
});

/** Ingests items for `owner` and answers their ids and current content hashes, in order. */
async function ingest(owner: string, inputs: ItemInput[]): Promise<{ id: string; hash: string }[]> {
  const { outcomes } = await store.upsert(owner, inputs);
  return Promise.all(outcomes.map(async (o) => ({ id: o.id, hash: await hashOf(o.id) })));
}

async function hashOf(id: string): Promise<string> {
  const [row] = await db.select({ hash: items.contentHash }).from(items).where(eq(items.id, id));
  if (!row) throw new Error(`no item ${id}`);
  return row.hash;
}

const chunk = (index: number, embedding: number[], span: [number, number] = [0, 10]): EmbeddedChunk => ({
  index,
  start: span[0],
  end: span[1],
  snippet: `snippet ${index}`,
  embedding,
});

async function chunksOf(itemId: string, key?: EmbeddingKey) {
  const rows = await db
    .select({
      model: itemChunks.model,
      dimensions: itemChunks.dimensions,
      index: itemChunks.chunkIndex,
      hash: itemChunks.contentHash,
      start: itemChunks.startOffset,
      end: itemChunks.endOffset,
      snippet: itemChunks.snippet,
      embedding: itemChunks.embedding,
    })
    .from(itemChunks)
    .where(eq(itemChunks.itemId, itemId))
    .orderBy(itemChunks.model, itemChunks.chunkIndex);
  return key ? rows.filter((r) => r.model === key.model && r.dimensions === key.dimensions) : rows;
}

describe("writeItemChunks", () => {
  it("stores the item's chunks with their spans, snippets, content hash and vectors", async () => {
    const key = modelKey();
    const [note] = await ingest(newUserId(), [input("a")]);
    const write = await writeItemChunks(db, { ...key, itemId: note!.id, contentHash: note!.hash }, [
      chunk(0, [0.1, 0.2, 0.3], [0, 40]),
      chunk(1, [-1, 0, 2.5e-7], [34, 80]),
    ]);
    expect(write).toEqual({ written: true });
    const rows = await chunksOf(note!.id, key);
    expect(rows.map(({ embedding: _e, ...r }) => r)).toEqual([
      { ...key, index: 0, hash: note!.hash, start: 0, end: 40, snippet: "snippet 0" },
      { ...key, index: 1, hash: note!.hash, start: 34, end: 80, snippet: "snippet 1" },
    ]);
    // pgvector stores float4: the values come back to float4 precision.
    expect(rows[0]!.embedding.map((x) => Math.fround(x))).toEqual([0.1, 0.2, 0.3].map(Math.fround));
    expect(rows[1]!.embedding[2]).toBeCloseTo(2.5e-7, 12);
  });

  it("replaces the model's chunks on a rewrite and deletes those past the new last one", async () => {
    const key = modelKey();
    const [note] = await ingest(newUserId(), [input("a")]);
    const target = { ...key, itemId: note!.id, contentHash: note!.hash };
    await writeItemChunks(db, target, [chunk(0, [1, 0, 0]), chunk(1, [0, 1, 0]), chunk(2, [0, 0, 1])]);
    await writeItemChunks(db, target, [chunk(0, [0, 0, 1], [0, 5])]);
    const rows = await chunksOf(note!.id, key);
    expect(rows.map((r) => [r.index, r.end, r.embedding])).toEqual([[0, 5, [0, 0, 1]]]);
  });

  it("writes several items in one statement, each only if it still has its hash, each trimmed to its own chunks", async () => {
    const key = modelKey();
    const owner = newUserId();
    const [a, b, c] = await ingest(owner, [input("a"), input("b"), input("c")]);
    await writeItemChunks(db, { ...key, itemId: a!.id, contentHash: a!.hash }, [
      chunk(0, [1, 0, 0]),
      chunk(1, [0, 1, 0]),
    ]);
    const [changed] = await ingest(owner, [input("c", { body: "c changed" })]);
    const { written } = await writeItemsChunks(db, key, [
      { itemId: a!.id, contentHash: a!.hash, chunks: [chunk(0, [0, 0, 1])] },
      { itemId: b!.id, contentHash: b!.hash, chunks: [chunk(0, [1, 1, 0]), chunk(1, [0, 1, 1])] },
      { itemId: c!.id, contentHash: c!.hash, chunks: [chunk(0, [1, 0, 1])] },
    ]);
    expect(written.sort()).toEqual([a!.id, b!.id].sort());
    expect((await chunksOf(a!.id, key)).map((r) => [r.index, r.embedding])).toEqual([[0, [0, 0, 1]]]);
    expect((await chunksOf(b!.id, key)).map((r) => r.index)).toEqual([0, 1]);
    expect(changed!.hash).not.toBe(c!.hash);
    expect(await chunksOf(c!.id, key)).toEqual([]);
  });

  it("writes nothing when the item changed since it was read: the newer content wins", async () => {
    const key = modelKey();
    const owner = newUserId();
    const [before] = await ingest(owner, [input("a", { body: "first version" })]);
    const [after] = await ingest(owner, [input("a", { body: "second version" })]);
    expect(after!.hash).not.toBe(before!.hash);
    const fresh = { ...key, itemId: after!.id, contentHash: after!.hash };
    expect(await writeItemChunks(db, fresh, [chunk(0, [1, 0, 0])])).toEqual({ written: true });
    // A slower writer that embedded the first version comes last: it must not replace the fresh chunks.
    const stale = { ...key, itemId: before!.id, contentHash: before!.hash };
    expect(await writeItemChunks(db, stale, [chunk(0, [0, 1, 0]), chunk(1, [0, 0, 1])])).toEqual({
      written: false,
    });
    const rows = await chunksOf(after!.id, key);
    expect(rows.map((r) => [r.index, r.hash, r.embedding])).toEqual([[0, after!.hash, [1, 0, 0]]]);
  });

  it("writes nothing for an item deleted before the write", async () => {
    const key = modelKey();
    const [note] = await ingest(newUserId(), [input("a")]);
    await db.delete(items).where(eq(items.id, note!.id));
    const write = await writeItemChunks(db, { ...key, itemId: note!.id, contentHash: note!.hash }, [
      chunk(0, [1, 0, 0]),
    ]);
    expect(write).toEqual({ written: false });
    expect(await chunksOf(note!.id)).toEqual([]);
  });

  it("loses the chunks with the item: deleting the item deletes them (cascade)", async () => {
    const [a, b] = [modelKey(), modelKey(4)];
    const [note, other] = await ingest(newUserId(), [input("a"), input("b")]);
    await writeItemChunks(db, { ...a, itemId: note!.id, contentHash: note!.hash }, [chunk(0, [1, 0, 0])]);
    await writeItemChunks(db, { ...b, itemId: note!.id, contentHash: note!.hash }, [chunk(0, [1, 0, 0, 1])]);
    await writeItemChunks(db, { ...a, itemId: other!.id, contentHash: other!.hash }, [chunk(0, [0, 1, 0])]);
    expect(await chunksOf(note!.id)).toHaveLength(2);
    await db.delete(items).where(eq(items.id, note!.id));
    expect(await chunksOf(note!.id)).toEqual([]);
    expect(await chunksOf(other!.id)).toHaveLength(1);
  });

  it("refuses a vector of another size than the model's, before the database sees it", async () => {
    const key = modelKey(3);
    const [note] = await ingest(newUserId(), [input("a")]);
    await expect(
      writeItemChunks(db, { ...key, itemId: note!.id, contentHash: note!.hash }, [chunk(0, [1, 0])]),
    ).rejects.toThrow(/2 dimensions, not 3/);
  });
});

describe("deleteOtherModelChunks", () => {
  it("deletes the chunks of other models and of other sizes of the same model, a bounded number at a time", async () => {
    const keep = modelKey(3);
    const [note] = await ingest(newUserId(), [input("a")]);
    const target = { itemId: note!.id, contentHash: note!.hash };
    await writeItemChunks(db, { ...keep, ...target }, [chunk(0, [1, 0, 0])]);
    await writeItemChunks(db, { ...keep, dimensions: 2, ...target }, [chunk(0, [1, 0]), chunk(1, [0, 1])]);
    await writeItemChunks(db, { model: `${keep.model}-old`, dimensions: 3, ...target }, [
      chunk(0, [0, 1, 0]),
    ]);
    // Other tests' chunks are "other models" too: delete in bounded steps until ours are gone.
    for (let round = 0; round < 1000 && (await chunksOf(note!.id)).length > 1; round++) {
      expect(await deleteOtherModelChunks(db, keep, 2)).toBeLessThanOrEqual(2);
    }
    const rows = await chunksOf(note!.id);
    expect(rows.map((r) => [r.model, r.dimensions])).toEqual([[keep.model, 3]]);
  });
});

describe("the embedding index's missing items (the daily backfill's pages)", () => {
  it("pages through every item by id in bounded windows, listing those with no current chunks of the model", async () => {
    const key = modelKey();
    const owner = newUserId();
    const [embedded, never, changed] = await ingest(owner, [input("a"), input("b"), input("c")]);
    await writeItemChunks(db, { ...key, itemId: embedded!.id, contentHash: embedded!.hash }, [
      chunk(0, [1, 0, 0]),
    ]);
    await writeItemChunks(db, { ...key, itemId: changed!.id, contentHash: changed!.hash }, [
      chunk(0, [1, 0, 0]),
    ]);
    await ingest(owner, [input("c", { body: "changed since it was embedded" })]);

    const listed = new Set<string>();
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const page = await createPgEmbeddingIndex(db).missing(key, { after, scan: 50 });
      expect(page.itemIds.length).toBeLessThanOrEqual(50);
      for (const id of page.itemIds) {
        expect(listed.has(id)).toBe(false);
        listed.add(id);
      }
      pages++;
      if (page.nextAfter === null) break;
      expect(page.nextAfter > (after ?? "")).toBe(true);
      after = page.nextAfter;
      expect(pages).toBeLessThan(10_000);
    }
    expect(listed.has(embedded!.id)).toBe(false);
    expect(listed.has(never!.id)).toBe(true);
    expect(listed.has(changed!.id)).toBe(true);
  });

  it("loads what chunking needs of the listed items, the body cut to the given length", async () => {
    const [note] = await ingest(newUserId(), [
      input("a", { kind: "doc", title: "Plan", body: "x".repeat(500) }),
    ]);
    const [source] = await loadEmbeddingSources(db, [note!.id, crypto.randomUUID()], 100);
    expect(source).toEqual({
      id: note!.id,
      kind: "doc",
      title: "Plan",
      body: "x".repeat(100),
      contentHash: note!.hash,
    });
  });
});

describe("ensureVectorIndex", () => {
  it("creates a partial HNSW cosine index over the model's vectors at their size in half precision, once", async () => {
    const key = modelKey(8);
    const first = await ensureVectorIndex(db, key);
    expect(first).toEqual({ name: await vectorIndexName(key), created: true });
    expect(await ensureVectorIndex(db, key)).toEqual({ name: first.name, created: false });
    const definition = await indexDefinition(first.name);
    expect(definition).toMatch(/USING hnsw \(\(\(embedding\)::halfvec\(8\)\) halfvec_cosine_ops\)/);
    expect(definition).toContain(`WHERE ((model = '${key.model}'::text) AND (dimensions = 8))`);
    await dropIndex(first.name);
  });

  it("indexes vectors past 2,000 dimensions (more than an index over vector takes), and quotes a model id with a quote in it", async () => {
    const key = { model: `test:${crypto.randomUUID()}'s`, dimensions: 3072 };
    const { name } = await ensureVectorIndex(db, key);
    const definition = await indexDefinition(name);
    expect(definition).toMatch(/\(\(embedding\)::halfvec\(3072\)\) halfvec_cosine_ops/);
    expect(definition).toContain(`'${key.model.replace("'", "''")}'::text`);
    await dropIndex(name);
  });

  it("refuses a size no HNSW index takes", async () => {
    await expect(ensureVectorIndex(db, modelKey(4001))).rejects.toThrow(/4001-dimension/);
  });
});

async function indexDefinition(name: string): Promise<string> {
  const { rows } = await db.execute(sql`select indexdef from pg_indexes where indexname = ${name}`);
  return String((rows[0] as { indexdef: string } | undefined)?.indexdef);
}

async function dropIndex(name: string): Promise<void> {
  await db.execute(sql.raw(`drop index if exists "${name}"`));
}

describe("searchByVector", () => {
  /** Two users and a team; ada owns items, ben sees some of them through sharing. */
  async function world() {
    const workspace = `vec-${crypto.randomUUID().slice(0, 8)}`;
    const [ada, ben, cy] = ["ada", "ben", "cy"].map((u) => userKey(workspace, u)) as [string, string, string];
    const members = workspaceStore();
    for (const user of ["ada", "ben", "cy"]) await members.addMember(workspace, user);
    await members.putTeam(workspace, "pay", { name: "Payments", members: ["ben"] }, new Date());
    const key = modelKey(3);
    const [mine, sharedWithBen, sharedWithTeam, task] = await ingest(ada, [
      input("mine", { body: "ada's private note" }),
      input("ben", { body: "for ben", sharedWith: ["ben"] }),
      input("team", { body: "for the team", sharedWith: ["team:pay"] }),
      input("task", { kind: "task", body: "a task", sharedWith: ["ben"] }),
    ]);
    const [cysOwn] = await ingest(cy, [input("cy", { body: "cy's own" })]);
    const embed = async (item: { id: string; hash: string }, ...vectors: number[][]) =>
      writeItemChunks(
        db,
        { ...key, itemId: item.id, contentHash: item.hash },
        vectors.map((v, i) => chunk(i, v, [i * 10, i * 10 + 10])),
      );
    return {
      ada,
      ben,
      cy,
      key,
      mine: mine!,
      sharedWithBen: sharedWithBen!,
      sharedWithTeam: sharedWithTeam!,
      task: task!,
      cysOwn: cysOwn!,
      embed,
      teamKey: teamKey(workspace, "pay"),
    };
  }

  describe.each<{ strategy: "exact" | "index" | "auto" }>([
    { strategy: "exact" },
    { strategy: "index" },
    { strategy: "auto" },
  ])("with the $strategy plan", ({ strategy }) => {
    const search = (viewer: string, query: number[], key: EmbeddingKey, options: VectorSearchOptions = {}) =>
      searchByVector(db, viewer, query, key, { ...options, strategy });

    it("answers what the viewer may see, nearest best chunk first, each item once with that chunk", async () => {
      const w = await world();
      await w.embed(w.mine, [1, 0, 0]);
      await w.embed(w.sharedWithBen, [0, 1, 0], [0.9, 0.1, 0]);
      await w.embed(w.sharedWithTeam, [0.7, 0.7, 0]);
      await w.embed(w.task, [0, 0, 1]);
      await w.embed(w.cysOwn, [1, 0, 0]);
      const query = [1, 0.05, 0];

      const forAda = await search(w.ada, query, w.key);
      expect(forAda.map((h) => h.itemId)).toEqual([
        w.mine.id,
        w.sharedWithBen.id,
        w.sharedWithTeam.id,
        w.task.id,
      ]);
      expect(forAda[1]).toMatchObject({ chunkIndex: 1, snippet: "snippet 1" });
      expect(forAda[0]!.distance).toBeLessThan(forAda[1]!.distance);
      expect(forAda[3]!.distance).toBeCloseTo(1, 5);

      // ben: what is shared with him and with his team, never ada's private note or cy's item.
      const forBen = await search(w.ben, query, w.key);
      expect(forBen.map((h) => h.itemId)).toEqual([w.sharedWithBen.id, w.sharedWithTeam.id, w.task.id]);
      // The team's own subject sees what is shared with it.
      expect((await search(w.teamKey, query, w.key)).map((h) => h.itemId)).toEqual([w.sharedWithTeam.id]);
      expect((await search(w.cy, query, w.key)).map((h) => h.itemId)).toEqual([w.cysOwn.id]);
    });

    it("applies the limit and the kind and time filters", async () => {
      const w = await world();
      for (const item of [w.mine, w.sharedWithBen, w.sharedWithTeam, w.task]) await w.embed(item, [1, 0, 0]);
      expect(await search(w.ada, [1, 0, 0], w.key, { limit: 2 })).toHaveLength(2);
      const tasks = await search(w.ada, [1, 0, 0], w.key, { kinds: ["task"] });
      expect(tasks.map((h) => h.itemId)).toEqual([w.task.id]);
      expect(await search(w.ada, [1, 0, 0], w.key, { since: new Date("2026-05-02T00:00:00Z") })).toEqual([]);
      expect(await search(w.ada, [1, 0, 0], w.key, { until: new Date("2026-05-02T00:00:00Z") })).toHaveLength(
        4,
      );
    });

    it("skips chunks of an item's older content and chunks of other models", async () => {
      const w = await world();
      await w.embed(w.mine, [1, 0, 0]);
      await w.embed(w.task, [0.5, 0.5, 0]);
      await writeItemChunks(
        db,
        {
          model: `${w.key.model}-other`,
          dimensions: 3,
          itemId: w.sharedWithBen.id,
          contentHash: w.sharedWithBen.hash,
        },
        [chunk(0, [1, 0, 0])],
      );
      await ingest(w.ada, [input("mine", { body: "ada's note, rewritten" })]);
      expect((await search(w.ada, [1, 0, 0], w.key)).map((h) => h.itemId)).toEqual([w.task.id]);
      // The same when the current hashes come from the owner's indexes: a time window, one kind.
      const window = { since: new Date("2026-05-01T00:00:00Z"), until: new Date("2026-05-02T00:00:00Z") };
      expect((await search(w.ada, [1, 0, 0], w.key, window)).map((h) => h.itemId)).toEqual([w.task.id]);
      expect(await search(w.ada, [1, 0, 0], w.key, { kinds: ["note"] })).toEqual([]);
      expect((await search(w.ada, [1, 0, 0], w.key, { kinds: ["task"] })).map((h) => h.itemId)).toEqual([
        w.task.id,
      ]);
    });

    it("stops showing an item to a sharee from the moment it is unshared", async () => {
      const w = await world();
      await w.embed(w.sharedWithBen, [1, 0, 0]);
      expect((await search(w.ben, [1, 0, 0], w.key)).map((h) => h.itemId)).toEqual([w.sharedWithBen.id]);
      await ingest(w.ada, [input("ben", { body: "for ben" })]);
      expect(await search(w.ben, [1, 0, 0], w.key)).toEqual([]);
    });
  });

  it("plans the index strategy on the model's HNSW index, and the exact one never on it", async () => {
    const w = await world();
    await w.embed(w.mine, [1, 0, 0]);
    const { name } = await ensureVectorIndex(db, w.key);
    const planOf = async (strategy: "exact" | "index") => {
      const query = vectorSearchQuery(w.ada, [1, 0, 0], w.key, { strategy });
      const results = await db.batch([
        db.execute(sql`set local enable_seqscan = off`),
        ...vectorSearchSettings().map((s) => db.execute(s)),
        db.execute(sql`explain ${query}`),
      ]);
      return (results.at(-1)?.rows ?? []).map((r) => String(r["QUERY PLAN"])).join("\n");
    };
    expect(await planOf("index")).toContain(name);
    expect(await planOf("exact")).not.toContain(name);
    for (const strategy of ["exact", "index"] as const) {
      const hits = await searchByVector(db, w.ada, [1, 0, 0], w.key, { strategy });
      expect(hits.map((h) => h.itemId)).toEqual([w.mine.id]);
    }
    await dropIndex(name);
  });

  it("auto scores every chunk of a viewer who sees few, and walks the index for one who sees most of them", async () => {
    const w = await world();
    await w.embed(w.mine, [1, 0, 0]);
    const { name } = await ensureVectorIndex(db, w.key);
    /** The plan's line for the HNSW index scan, as it ran. */
    const indexScan = async () => {
      const query = vectorSearchQuery(w.ada, [1, 0, 0], w.key, { strategy: "auto" });
      // A table this small is cheaper to scan than the graph: the index is forced, as above.
      const results = await db.batch([
        db.execute(sql`set local enable_seqscan = off`),
        ...vectorSearchSettings().map((s) => db.execute(s)),
        db.execute(sql`explain (analyze, costs off) ${query}`),
      ]);
      const plan = (results.at(-1)?.rows ?? []).map((r) => String(r["QUERY PLAN"]));
      return plan.find((line) => line.includes(name)) ?? "";
    };
    expect(await indexScan()).toContain("never executed");

    // With 2,000 more items (copies of the first, each with a chunk in a random direction), ada sees most
    // of the chunks: they are found through the index.
    await db.execute(sql`
      insert into items (owner_id, source, external_id, kind, title, body, occurred_at, content_hash)
      select owner_id, source, external_id || '-' || g, kind, title, body, occurred_at, content_hash
      from items, generate_series(1, 2000) g where id = ${w.mine.id}::uuid`);
    await db.execute(sql`
      insert into item_chunks (item_id, model, dimensions, chunk_index, content_hash, start_offset, end_offset, snippet, embedding)
      select id, ${w.key.model}, 3, 0, content_hash, 0, 1, 'copy', array[random() - 0.5, random() - 0.5, random() - 0.5]::real[]::vector
      from items where owner_id = ${w.ada} and external_id like 'mine-%'`);
    const scan = await indexScan();
    expect(scan).not.toBe("");
    expect(scan).not.toContain("never executed");
    const hits = await searchByVector(db, w.ada, [1, 0, 0], w.key, { strategy: "auto" });
    // Approximate, but a full page, nearest first, of ada's items only.
    expect(hits).toHaveLength(20);
    expect(hits.map((h) => h.distance)).toEqual(hits.map((h) => h.distance).sort((a, b) => a - b));
    const owners = await db.execute(
      sql`select distinct owner_id from items where id = any(${`{${hits.map((h) => h.itemId).join(",")}}`}::uuid[])`,
    );
    expect(owners.rows).toEqual([{ owner_id: w.ada }]);
    await dropIndex(name);
  });
});

describe("nearItems", () => {
  it("answers, in one read for every query, the given items near each one above the threshold, best first", async () => {
    const workspace = `near-${crypto.randomUUID().slice(0, 8)}`;
    const [ada, cy] = [userKey(workspace, "ada"), userKey(workspace, "cy")];
    const key = modelKey(3);
    const [a, b, c] = await ingest(ada, [input("a"), input("b"), input("c")]);
    const [cys] = await ingest(cy, [input("cy")]);
    const embed = async (item: { id: string; hash: string } | undefined, ...vectors: number[][]) =>
      writeItemChunks(
        db,
        { ...key, itemId: item!.id, contentHash: item!.hash },
        vectors.map((v, i) => chunk(i, v)),
      );
    await embed(a, [1, 0, 0], [0, 1, 0]);
    await embed(b, [0.8, 0.6, 0]);
    await embed(c, [0, 0, 1]);
    await embed(cys, [1, 0, 0]);
    const ids = [a!.id, b!.id, c!.id, cys!.id];
    const near = (
      itemIds: string[],
      options: Partial<{ minSimilarity: number; perQuery: number; chunksPerItem: number }> = {},
    ) =>
      nearItems(
        db,
        ada,
        [
          [1, 0, 0],
          [0, 1, 0],
        ],
        itemIds,
        key,
        {
          minSimilarity: 0.5,
          perQuery: 5,
          chunksPerItem: 4,
          ...options,
        },
      );
    const pairs = (hits: NearItem[]) => hits.map((h) => [h.query, h.itemId, Number(h.similarity.toFixed(3))]);

    // Each item scored by its best chunk; below the threshold (c) and invisible to ada (cy's) left out.
    expect(pairs(await near(ids))).toEqual([
      [0, a!.id, 1],
      [0, b!.id, 0.8],
      [1, a!.id, 1],
      [1, b!.id, 0.6],
    ]);
    expect(pairs(await near(ids, { minSimilarity: 0.7 }))).toEqual([
      [0, a!.id, 1],
      [0, b!.id, 0.8],
      [1, a!.id, 1],
    ]);
    expect(pairs(await near(ids, { perQuery: 1 }))).toEqual([
      [0, a!.id, 1],
      [1, a!.id, 1],
    ]);
    // Only the first chunks of an item are read: a's second chunk is what made it near query 1.
    expect(pairs(await near(ids, { chunksPerItem: 1 }))).toEqual([
      [0, a!.id, 1],
      [0, b!.id, 0.8],
      [1, b!.id, 0.6],
    ]);
    // Only the given items.
    expect(pairs(await near([b!.id, c!.id]))).toEqual([
      [0, b!.id, 0.8],
      [1, b!.id, 0.6],
    ]);
    // Another model's rows are never read as this one's.
    expect(
      await nearItems(db, ada, [[1, 0, 0]], ids, modelKey(3), {
        minSimilarity: -1,
        perQuery: 5,
        chunksPerItem: 4,
      }),
    ).toEqual([]);
    // Chunks of an item's older content are stale.
    await ingest(ada, [input("a", { body: "rewritten" })]);
    expect(pairs(await near(ids)).map(([, id]) => id)).not.toContain(a!.id);
    expect(
      await nearItems(db, ada, [], ids, key, { minSimilarity: 0, perQuery: 5, chunksPerItem: 4 }),
    ).toEqual([]);
  });
});
