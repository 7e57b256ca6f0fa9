/**
 * What an HNSW index's build parameters cost the embeddings queue's writes, and what they give the vector
 * channel's recall, straight on PostgreSQL with pgvector:
 *   npm run bench:hnsw-insert   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
 * BASE synthetic items (bench/lib/synthetic-workspace.ts, default 20,000) are chunked as the consumer
 * chunks them and given the fake embedder's vectors (256 dimensions); for each variant (VARIANTS, e.g.
 * "vector:16:64,halfvec:16:64": the index's type, m and ef_construction) a table of them gets the model's
 * partial index as item-chunk-index.ts builds it, then the chunks of INSERTS other items (default 1,000)
 * are inserted in statements of 50 chunks, as the consumer writes them. Per variant: the build's time, the
 * inserts' time and the server process's CPU time for them (read from /proc when the server runs on this
 * machine: unlike wall time, it hardly moves with other work on the machine), the index's size, and
 * recall@10 against exact search for QUERIES other items' first chunks at hnsw.ef_search 40 and 80 (a
 * search of 20 results asks for 80 chunks). ROUNDS (default 1) repeats the inserts' measurement on a fresh
 * table, variants interleaved; medians are printed. The last line is JSON.
 */
import pg from "pg";
import { createFreshDatabase, dropDatabase } from "../scripts/lib/migrate";
import { chunkItem } from "../src/domain/chunks";
import { fakeEmbedding } from "../test/support/node/fake-llm/embedding-vectors";
import { processCpuSeconds } from "./lib/proc-cpu";
import { syntheticWorkspace } from "./lib/synthetic-workspace";

const BASE = Number(process.env.BASE ?? 20_000);
const INSERTS = Number(process.env.INSERTS ?? 1000);
const QUERIES = Number(process.env.QUERIES ?? 150);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const WRITE_CHUNKS = 50;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const VARIANTS = (
  process.env.VARIANTS ?? "vector:16:64,halfvec:16:64,vector:16:32,halfvec:16:32,halfvec:8:32"
)
  .split(",")
  .map((text) => {
    const [type, m, efc] = text.split(":");
    if ((type !== "vector" && type !== "halfvec") || !Number(m) || !Number(efc))
      throw new Error(`VARIANTS: "${text}" is not <vector|halfvec>:<m>:<ef_construction>`);
    return { label: text, type, m: Number(m), efc: Number(efc) };
  });
const DIMS = 256;

/** The vectors of `count` items' chunks; the seed's high bits keep them apart from other sets' items. */
function chunkVectors(seed: number, count: number, firstChunkOnly = false): string[] {
  const ws = syntheticWorkspace({ anchor: Date.parse("2026-11-30T00:00:00Z"), seed });
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const item = ws.item(i);
    const chunks = chunkItem({ kind: item.kind, title: item.title ?? "", body: item.body ?? "" }, 512);
    for (const chunk of firstChunkOnly ? chunks.slice(0, 1) : chunks) {
      out.push(
        `[${fakeEmbedding(chunk.text, DIMS)
          .map((x) => Number(x.toPrecision(9)))
          .join(",")}]`,
      );
    }
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

// Different seeds' items must differ: the workspace mixes seed and index by XOR below 2^16.
const base = chunkVectors(12, BASE);
const inserts = chunkVectors(13 << 16, INSERTS);
const queries = chunkVectors(7 << 16, QUERIES, true);
console.error(
  `[bench] ${base.length} chunks in the table, ${inserts.length} inserted, ${queries.length} queries`,
);

const databaseUrl = await createFreshDatabase(ADMIN_URL, "um_bench_hnsw");
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
const results: Record<
  string,
  { buildMs: number; indexMb: number; insertMs: number[]; cpuS: number[]; recall40: number; recall80: number }
> = {};
try {
  const pid = Number((await client.query("select pg_backend_pid() as pid")).rows[0].pid);
  await client.query("create extension if not exists vector");
  await client.query("set jit = off");
  const load = async (table: string, vectors: string[]) => {
    await client.query(`create table ${table} (id int, model text, v vector)`);
    for (let at = 0; at < vectors.length; at += 1000) {
      const slice = vectors.slice(at, at + 1000);
      await client.query(
        `insert into ${table} select n + ${at}, 'm', v::vector from unnest($1::text[]) with ordinality as u(v, n)`,
        [slice],
      );
    }
  };
  await load("base", base);
  await load("queries", queries);
  for (const variant of VARIANTS)
    results[variant.label] = { buildMs: 0, indexMb: 0, insertMs: [], cpuS: [], recall40: 0, recall80: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const { label, type, m, efc } of VARIANTS) {
      const r = results[label]!;
      await client.query("drop table if exists t");
      await client.query("create table t as select * from base");
      let t0 = performance.now();
      await client.query(
        `create index t_hnsw on t using hnsw ((v::${type}(${DIMS})) ${type}_cosine_ops) ` +
          `with (m = ${m}, ef_construction = ${efc}) where model = 'm'`,
      );
      r.buildMs = Math.round(performance.now() - t0);
      await client.query("vacuum analyze t");
      const cpu0 = processCpuSeconds(pid);
      t0 = performance.now();
      for (let at = 0; at < inserts.length; at += WRITE_CHUNKS) {
        await client.query(
          `insert into t select 1000000 + n + ${at}, 'm', v::vector from unnest($1::text[]) with ordinality as u(v, n)`,
          [inserts.slice(at, at + WRITE_CHUNKS)],
        );
      }
      r.insertMs.push(performance.now() - t0);
      const cpu1 = processCpuSeconds(pid);
      if (cpu0 !== null && cpu1 !== null) r.cpuS.push(cpu1 - cpu0);
      const size = await client.query("select pg_relation_size('t_hnsw') as bytes");
      r.indexMb = Math.round(Number(size.rows[0].bytes) / 1e5) / 10;
      if (round > 0) continue;
      for (const ef of [40, 80]) {
        await client.query(`set hnsw.ef_search = ${ef}`);
        const hits = await client.query(`
          with ann as (select q.id as qid, x.id from queries q cross join lateral (
              select id from t where model = 'm' order by v::${type}(${DIMS}) <=> q.v::${type}(${DIMS}) limit 10) x),
            exact as (select q.id as qid, x.id from queries q cross join lateral (
              select id from t where model = 'm' order by v <=> q.v limit 10) x)
          select (select count(*) from ann join exact using (qid, id))::float8 / (select count(*) from exact) as recall`);
        const recall = Math.round(Number(hits.rows[0].recall) * 1000) / 1000;
        if (ef === 40) r.recall40 = recall;
        else r.recall80 = recall;
      }
    }
  }
  console.log(
    `${base.length} chunks indexed, ${inserts.length} inserted in statements of ${WRITE_CHUNKS}, ${ROUNDS} round(s)`,
  );
  console.log(
    "| index | build | size | inserts (wall) | server CPU a chunk | recall@10, ef_search 40 / 80 |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const [label, r] of Object.entries(results)) {
    const cpu = r.cpuS.length ? `${((median(r.cpuS) / inserts.length) * 1000).toFixed(2)} ms` : "n/a";
    console.log(
      `| ${label} | ${(r.buildMs / 1000).toFixed(1)} s | ${r.indexMb} MB | ${(median(r.insertMs) / 1000).toFixed(2)} s | ${cpu} | ${r.recall40} / ${r.recall80} |`,
    );
  }
  console.log(JSON.stringify({ chunks: base.length, inserted: inserts.length, results }));
} finally {
  await client.end();
  if (process.env.BENCH_KEEP_DATABASE === "1") console.error(`[bench] kept the database ${databaseUrl}`);
  else await dropDatabase(ADMIN_URL, databaseUrl);
}
