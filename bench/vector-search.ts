/**
 * The vector channel's SQL (src/db/item-chunks.ts vectorSearchQuery) at scale, straight on PostgreSQL:
 *   npm run bench:vector-search   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
 * A fresh database with the migrations; USERS users of ITEMS_PER_USER items each, one chunk an item with a
 * random unit vector of DIMS dimensions (directions carry no meaning: this measures cost and recall of the
 * filtered index scan, not quality). Builds the model's HNSW index (timed), then for SAMPLES random queries
 * of one user (who owns ITEMS_PER_USER of the chunks): the "exact" strategy (the viewer's chunks, every
 * distance) against the "index" one (HNSW with iterative scan, as searchByVector runs it): latency, and
 * the index strategy's recall@10 against the exact answer.
 */
import { writeFileSync } from "node:fs";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { ROOT } from "../scripts/lib/dev-secret";
import { applyMigrations, createFreshDatabase, dropDatabase } from "../scripts/lib/migrate";
import type { Db } from "../src/db/client";
import { ensureVectorIndex } from "../src/db/item-chunk-index";
import { vectorSearchQuery, vectorSearchSettings } from "../src/db/item-chunk-search";
import { summarize } from "./lib/stats";

const USERS = Number(process.env.USERS ?? 50);
const ITEMS_PER_USER = Number(process.env.ITEMS_PER_USER ?? 1000);
const DIMS = Number(process.env.DIMS ?? 384);
const SAMPLES = Number(process.env.SAMPLES ?? 50);
const LIMIT = 10;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const RESULT_FILE = `${ROOT}bench/results/vector-search.json`;
const key = { model: "bench:random", dimensions: DIMS };
const subject = "default/user-0";
const dialect = new PgDialect();

const url = await createFreshDatabase(ADMIN_URL, "um_bench_vector");
const client = new pg.Client({ connectionString: url });
try {
  await applyMigrations(url);
  await client.connect();
  const rows = USERS * ITEMS_PER_USER;
  let started = Date.now();
  await client.query(
    `insert into items (owner_id, source, external_id, kind, body, occurred_at, content_hash)
     select 'default/user-' || (i % $1), 'bench', i::text, 'note', 'item ' || i,
            timestamptz '2026-01-01' + i * interval '1 minute', 'h'
     from generate_series(0, $2 - 1) i`,
    [USERS, rows],
  );
  // Random unit vectors: the subquery is correlated with the row (else Postgres computes it once).
  await client.query(
    `insert into item_chunks (item_id, model, dimensions, chunk_index, content_hash, start_offset, end_offset, snippet, embedding)
     select i.id, $1, $2, 0, 'h', 0, 1, 'x',
       (select array_agg(random() - 0.5) from generate_series(1, $2) g where i.id is not null)::vector
     from items i`,
    [key.model, DIMS],
  );
  await client.query(`update item_chunks set embedding = l2_normalize(embedding)`);
  await client.query("vacuum analyze items");
  await client.query("vacuum analyze item_chunks");
  const loadMs = Date.now() - started;

  started = Date.now();
  await ensureVectorIndex(adapter(client), key);
  const indexMs = Date.now() - started;
  await client.query("analyze item_chunks");

  const indexed: number[] = [];
  const exact: number[] = [];
  let recall = 0;
  const plans: Record<string, string> = {};
  for (let s = 0; s < SAMPLES; s++) {
    const query = randomUnit(DIMS);
    const run = async (strategy: "exact" | "index") => {
      const q = dialect.sqlToQuery(vectorSearchQuery(subject, query, key, { limit: LIMIT, strategy }));
      await client.query("begin");
      if (strategy === "index") {
        for (const setting of vectorSearchSettings({ limit: LIMIT })) {
          await client.query(dialect.sqlToQuery(setting).sql);
        }
      }
      if (s === 0) plans[strategy] = explainText(await client.query(`explain analyze ${q.sql}`, q.params));
      const t = performance.now();
      const ids = (await client.query(q.sql, q.params)).rows.map((r) => r.item_id as string);
      const ms = performance.now() - t;
      await client.query("rollback");
      return { ids, ms };
    };
    const byIndex = await run("index");
    const byScan = await run("exact");
    indexed.push(byIndex.ms);
    exact.push(byScan.ms);
    recall += byScan.ids.filter((id) => byIndex.ids.includes(id)).length / Math.max(1, byScan.ids.length);
  }
  const result = {
    at: new Date().toISOString(),
    rows,
    users: USERS,
    itemsPerUser: ITEMS_PER_USER,
    dimensions: DIMS,
    loadMs,
    indexBuildMs: indexMs,
    viewerChunks: ITEMS_PER_USER,
    exactMs: summarize(exact),
    indexMs: summarize(indexed),
    /** Of the exact top 10, the share the index strategy found. */
    indexRecallAt10: Math.round((recall / SAMPLES) * 1000) / 1000,
  };
  console.log(JSON.stringify(result, null, 2));
  for (const [strategy, plan] of Object.entries(plans)) console.log(`-- ${strategy}\n${shorten(plan)}`);
  writeFileSync(RESULT_FILE, `${JSON.stringify({ ...result, plans }, null, 2)}\n`);
} finally {
  await client.end().catch(() => {});
  await dropDatabase(ADMIN_URL, url);
}

/** The two calls ensureVectorIndex makes, over a pg client (it only uses db.execute). */
function adapter(c: pg.Client): Db {
  return {
    execute: async (query: Parameters<Db["execute"]>[0]) => {
      const { sql, params } = dialect.sqlToQuery(query as Parameters<PgDialect["sqlToQuery"]>[0]);
      return c.query(sql, params);
    },
  } as unknown as Db;
}

/** Plans without the query vector's 384 numbers. */
function shorten(plan: string): string {
  return plan.replace(/'\[[^\]]*\]'/g, "'[…]'");
}

function explainText(result: pg.QueryResult): string {
  return result.rows.map((r) => String(r["QUERY PLAN"])).join("\n");
}

function randomUnit(n: number): number[] {
  const v = Array.from({ length: n }, () => Math.random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}
