/**
 * Indexing throughput through the embeddings queue, through `wrangler dev` with the fake LLM's embeddings:
 *   npm run bench:embed-throughput
 * Ingests ITEMS synthetic items (bench/lib/synthetic-workspace.ts) of one user through POST /items in
 * batches of 500, then waits until GET /admin/embeddings answers `pending: 0`. Prints the ingest time, the
 * time until every item was indexed (from the first ingest request), and items/s for both; the last line
 * is JSON, for scripts. BENCH_PORT (default 8799) for wrangler dev; BENCH_DATABASE_URL for PostgreSQL
 * instead of PGlite; EMBEDDING_MODEL with EMBEDDING_BASE_URL (and EMBEDDING_DIMENSIONS) for another
 * embedder, e.g. the word-vector server (node ../shared/tools/word-vector-embeddings.mjs 8812, then
 * EMBEDDING_MODEL=openai:wink-sg-100d EMBEDDING_BASE_URL=http://127.0.0.1:8812/v1).
 */
import { signDevToken } from "../scripts/lib/token";
import { startFakeLlm } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, backend, startBenchStack } from "./lib/bench-stack";
import { syntheticWorkspace } from "./lib/synthetic-workspace";

const ITEMS = Number(process.env.ITEMS ?? 5000);
const BATCH = 500;
const INDEX_TIMEOUT_MS = Number(process.env.INDEX_TIMEOUT_MS ?? 600_000);
const USER = "bench-embed";

const fake = process.env.EMBEDDING_MODEL ? null : await startFakeLlm();
const vars: Record<string, string> = fake
  ? { EMBEDDING_MODEL: "openai:fake-embedding", EMBEDDING_BASE_URL: `${fake.url}/openai/v1` }
  : { EMBEDDING_MODEL: process.env.EMBEDDING_MODEL ?? "" };
for (const name of ["EMBEDDING_BASE_URL", "EMBEDDING_DIMENSIONS", "OPENAI_API_KEY"]) {
  const value = process.env[name];
  if (!fake && value) vars[name] = value;
}
const stack = await startBenchStack("embed-throughput", vars);
try {
  const headers = {
    authorization: `Bearer ${signDevToken(BENCH_SECRET, USER)}`,
    "content-type": "application/json",
  };
  const ws = syntheticWorkspace({ anchor: Date.parse("2026-11-30T00:00:00Z") });
  const t0 = performance.now();
  for (let at = 0; at < ITEMS; at += BATCH) {
    const items = [];
    for (let i = at; i < Math.min(ITEMS, at + BATCH); i++) items.push(ws.item(i));
    const res = await fetch(`${stack.url}/items`, {
      method: "POST",
      headers,
      body: JSON.stringify({ items }),
    });
    if (!res.ok) throw new Error(`POST /items: ${res.status} ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
  }
  const ingestMs = performance.now() - t0;
  let status: { items?: number; indexed?: number; pending?: number; dimensions?: number | null } = {};
  for (;;) {
    const res = await fetch(`${stack.url}/admin/embeddings`, { headers });
    status = (await res.json()) as typeof status;
    if (status.pending === 0) break;
    if (performance.now() - t0 > INDEX_TIMEOUT_MS) throw new Error(`still ${status.pending} pending`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const indexMs = performance.now() - t0;
  const rate = (ms: number) => Math.round((ITEMS / ms) * 1000);
  console.log(`backend ${backend()}, embedder ${vars.EMBEDDING_MODEL}, ${ITEMS} items`);
  console.log(`ingest: ${(ingestMs / 1000).toFixed(1)} s (${rate(ingestMs)} items/s)`);
  console.log(
    `indexed (from the first ingest request): ${(indexMs / 1000).toFixed(1)} s (${rate(indexMs)} items/s)`,
  );
  console.log(
    JSON.stringify({ items: ITEMS, ingestMs: Math.round(ingestMs), indexMs: Math.round(indexMs), status }),
  );
} finally {
  await stack.close();
  await fake?.close();
}
