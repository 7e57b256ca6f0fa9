/**
 * Indexing throughput through the embeddings queue, through wrangler's local runtime (without its inspector,
 * as deployed; BENCH_INSPECTOR=1 keeps it) on PostgreSQL with the fake LLM's embeddings:
 *   npm run bench:embed-throughput        (BENCH_DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/postgres)
 * 1. switch-on: ITEMS synthetic items (bench/lib/synthetic-workspace.ts) of one user ingested through
 *    POST /items (batches of 500) with no embedder; the worker restarted on the same database with the
 *    embedder; from its first request (which starts the model's backfill) until GET /admin/embeddings
 *    answers `pending: 0`: the queue's own throughput; and until the model's HNSW index, which the backfill
 *    builds once after its items, is valid.
 * 2. ingest: ITEMS more items of another user ingested with the embedder on; from the first ingest request
 *    until every one is indexed (INGEST=0 skips it).
 * Each part's CPU an item, by process: this one (the fake embedder and the Neon stand-in), wrangler's Node.js
 * process, workerd, PostgreSQL. The last line is JSON, for scripts. BENCH_PORT (default 8799) for wrangler dev. EMBEDDING_MODEL with
 * EMBEDDING_BASE_URL (and EMBEDDING_DIMENSIONS) for another embedder, e.g. the word-vector server
 * (node ../shared/tools/word-vector-embeddings.mjs 8812, then EMBEDDING_MODEL=openai:wink-sg-100d
 * EMBEDDING_BASE_URL=http://127.0.0.1:8812/v1).
 */

import { signDevToken } from "../scripts/lib/token";
import { startFakeLlm } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, type BenchStack, startBenchStack } from "./lib/bench-stack";
import { type EmbeddingStatus, embeddingStatus, pauseBeforeRead } from "./lib/embedding-status";
import { cpuDelta, loadAverage, stackCpu } from "./lib/proc-cpu";
import { syntheticWorkspace } from "./lib/synthetic-workspace";

const ITEMS = Number(process.env.ITEMS ?? 5000);
const BATCH = 500;
const INDEX_TIMEOUT_MS = Number(process.env.INDEX_TIMEOUT_MS ?? 600_000);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** SWITCH_ON=0 skips the first part (for a tree that does not start a model's backfill by itself). */
const SWITCH_ON = process.env.SWITCH_ON !== "0";
/** INGEST=0 skips the second part. */
const INGEST = process.env.INGEST !== "0";

const fake = process.env.EMBEDDING_MODEL ? null : await startFakeLlm();
const embedding: Record<string, string> = fake
  ? { EMBEDDING_MODEL: "openai:fake-embedding", EMBEDDING_BASE_URL: `${fake.url}/openai/v1` }
  : { EMBEDDING_MODEL: process.env.EMBEDDING_MODEL ?? "" };
for (const name of ["EMBEDDING_BASE_URL", "EMBEDDING_DIMENSIONS", "OPENAI_API_KEY"]) {
  const value = process.env[name];
  if (!fake && value) embedding[name] = value;
}
// As deployed: wrangler's inspector copies every subrequest's body to its Node.js process (BENCH_INSPECTOR=1 keeps it).
const stack: BenchStack = await startBenchStack(
  "embed-throughput",
  SWITCH_ON ? {} : embedding,
  ADMIN_URL,
  undefined,
  process.env.BENCH_INSPECTOR === "1",
);
const headers = (user: string) => ({
  authorization: `Bearer ${signDevToken(BENCH_SECRET, user)}`,
  "content-type": "application/json",
});

async function ingest(user: string, seed: number): Promise<void> {
  const ws = syntheticWorkspace({ anchor: Date.parse("2026-11-30T00:00:00Z"), seed });
  for (let at = 0; at < ITEMS; at += BATCH) {
    const items = [];
    for (let i = at; i < Math.min(ITEMS, at + BATCH); i++) items.push(ws.item(i));
    const res = await fetch(`${stack.url}/items`, {
      method: "POST",
      headers: headers(user),
      body: JSON.stringify({ items }),
    });
    if (!res.ok) throw new Error(`POST /items: ${res.status} ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
  }
}

/** Polls the user's workspace's GET /admin/embeddings until `done` holds for it; answers that status. */
async function until(user: string, since: number, done: (status: EmbeddingStatus) => boolean) {
  for (;;) {
    const status = await embeddingStatus(stack.url, headers(user));
    if (status && done(status)) return status;
    if (performance.now() - since > INDEX_TIMEOUT_MS) throw new Error(`still ${JSON.stringify(status)}`);
    await pauseBeforeRead(status?.items ?? 0);
  }
}
const allIndexed = (status: EmbeddingStatus) => status.pending === 0 && status.indexed > 0;

const rate = (ms: number) => Math.round((ITEMS / ms) * 1000);
const databaseName = new URL(stack.databaseUrl).pathname.slice(1);

/**
 * CPU seconds of this process (the fake embedder and the Neon stand-in), wrangler's node process, workerd and
 * the database's PostgreSQL backends while `phase` runs, polled so that a backend that exits is counted.
 */
async function withCpu<T>(phase: () => Promise<T>): Promise<{ value: T; cpu: Record<string, number> }> {
  const first = stackCpu(process.pid, databaseName);
  const last = { ...first };
  const timer = setInterval(() => Object.assign(last, stackCpu(process.pid, databaseName)), 250);
  try {
    const value = await phase();
    Object.assign(last, stackCpu(process.pid, databaseName));
    return { value, cpu: cpuDelta(first, last) };
  } finally {
    clearInterval(timer);
  }
}
const cpuLine = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .map(
      ([group, seconds]) =>
        `${group} ${(seconds / ITEMS) * 1000 < 0.05 ? "0" : ((seconds / ITEMS) * 1000).toFixed(2)}`,
    )
    .join(", ");
try {
  let switchOnMs = Number.NaN;
  let switchOnCpu: Record<string, number> = {};
  let vectorIndexMs = Number.NaN;
  if (SWITCH_ON) {
    await ingest("bench-existing", 12);
    await stack.restart(embedding);
    const t0 = performance.now();
    switchOnCpu = (
      await withCpu(async () => {
        await until("bench-existing", t0, allIndexed);
        switchOnMs = performance.now() - t0;
        // The backfill builds the model's HNSW index once, after its items.
        await until("bench-existing", t0, (status) => status.vectorIndex === "ready");
        vectorIndexMs = performance.now() - t0;
      })
    ).cpu;
  }

  let ingestMs = Number.NaN;
  let indexMs = Number.NaN;
  let ingestCpu: Record<string, number> = {};
  if (INGEST) {
    const t1 = performance.now();
    ingestCpu = (
      await withCpu(async () => {
        await ingest("bench-new", 13);
        ingestMs = performance.now() - t1;
        await until("bench-new", t1, allIndexed);
        indexMs = performance.now() - t1;
      })
    ).cpu;
  }

  const dimensions = (await embeddingStatus(stack.url, headers("bench-existing")))?.dimensions;
  console.log(`embedder ${embedding.EMBEDDING_MODEL} (${dimensions} dimensions), ${ITEMS} items each`);
  if (SWITCH_ON) {
    console.log(
      `switch-on: ${ITEMS} existing items indexed ${(switchOnMs / 1000).toFixed(1)} s after the first request (${rate(switchOnMs)} items/s), the model's HNSW index built ${(vectorIndexMs / 1000).toFixed(1)} s after it (${rate(vectorIndexMs)} items/s)`,
    );
    console.log(`  CPU ms an item: ${cpuLine(switchOnCpu)}`);
  }
  if (INGEST) {
    console.log(
      `ingest: ${(ingestMs / 1000).toFixed(1)} s (${rate(ingestMs)} items/s); all indexed ${(indexMs / 1000).toFixed(1)} s after the first request (${rate(indexMs)} items/s)`,
    );
    console.log(`  CPU ms an item: ${cpuLine(ingestCpu)}`);
  }
  console.log(`load average ${loadAverage()}`);
  console.log(
    JSON.stringify({
      items: ITEMS,
      switchOnMs: Math.round(switchOnMs),
      vectorIndexMs: Math.round(vectorIndexMs),
      ingestMs: Math.round(ingestMs),
      indexMs: Math.round(indexMs),
      switchOnCpu,
      ingestCpu,
    }),
  );
} finally {
  await stack.close();
  await fake?.close();
}
