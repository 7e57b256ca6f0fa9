/**
 * Indexing throughput through the embeddings queue, through `wrangler dev` on PostgreSQL with the fake LLM's
 * embeddings:
 *   npm run bench:embed-throughput        (BENCH_DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/postgres)
 * 1. switch-on: ITEMS synthetic items (bench/lib/synthetic-workspace.ts) of one user ingested through
 *    POST /items (batches of 500) with no embedder; the worker restarted on the same database with the
 *    embedder; from its first request (which starts the model's backfill) until GET /admin/embeddings
 *    answers `pending: 0`: the queue's own throughput.
 * 2. ingest: ITEMS more items of another user ingested with the embedder on; from the first ingest request
 *    until every one is indexed.
 * The last line is JSON, for scripts. BENCH_PORT (default 8799) for wrangler dev. EMBEDDING_MODEL with
 * EMBEDDING_BASE_URL (and EMBEDDING_DIMENSIONS) for another embedder, e.g. the word-vector server
 * (node ../shared/tools/word-vector-embeddings.mjs 8812, then EMBEDDING_MODEL=openai:wink-sg-100d
 * EMBEDDING_BASE_URL=http://127.0.0.1:8812/v1).
 */

import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../scripts/lib/dev-secret";
import { createFreshDatabase, dropDatabase } from "../scripts/lib/migrate";
import { type Stack, startStack } from "../scripts/lib/stack";
import { signDevToken } from "../scripts/lib/token";
import { startFakeLlm } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET } from "./lib/bench-stack";
import { embeddingStatus } from "./lib/embedding-status";
import { syntheticWorkspace } from "./lib/synthetic-workspace";

const ITEMS = Number(process.env.ITEMS ?? 5000);
const BATCH = 500;
const INDEX_TIMEOUT_MS = Number(process.env.INDEX_TIMEOUT_MS ?? 600_000);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** SWITCH_ON=0 skips the first part (for a tree that does not start a model's backfill by itself). */
const SWITCH_ON = process.env.SWITCH_ON !== "0";
const LOG_FILE = `${ROOT}bench/results/embed-throughput-wrangler.log`;

const fake = process.env.EMBEDDING_MODEL ? null : await startFakeLlm();
const embedding: Record<string, string> = fake
  ? { EMBEDDING_MODEL: "openai:fake-embedding", EMBEDDING_BASE_URL: `${fake.url}/openai/v1` }
  : { EMBEDDING_MODEL: process.env.EMBEDDING_MODEL ?? "" };
for (const name of ["EMBEDDING_BASE_URL", "EMBEDDING_DIMENSIONS", "OPENAI_API_KEY"]) {
  const value = process.env[name];
  if (!fake && value) embedding[name] = value;
}
mkdirSync(`${ROOT}bench/results`, { recursive: true });
writeFileSync(LOG_FILE, "");
const databaseUrl = await createFreshDatabase(ADMIN_URL, "um_bench_embed");
const persistTo = mkdtempSync(join(tmpdir(), "um-bench-embed-"));

const start = (vars: Record<string, string>): Promise<Stack> =>
  startStack({
    port: Number(process.env.BENCH_PORT ?? 8799),
    databaseUrl,
    vars: { AUTH_JWT_SECRET: BENCH_SECRET, ...vars },
    persistTo,
    onOutput: (chunk) => appendFileSync(LOG_FILE, chunk),
    log: (line) => console.error(`[bench] ${line}`),
  });
const headers = (user: string) => ({
  authorization: `Bearer ${signDevToken(BENCH_SECRET, user)}`,
  "content-type": "application/json",
});

async function ingest(stack: Stack, user: string, seed: number): Promise<void> {
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

/** Polls the user's workspace until nothing is pending; answers the last status. */
async function untilIndexed(stack: Stack, user: string, since: number) {
  for (;;) {
    const status = await embeddingStatus(stack.url, headers(user));
    if (status?.pending === 0 && status.indexed > 0) return status;
    if (performance.now() - since > INDEX_TIMEOUT_MS) throw new Error(`still ${status?.pending} pending`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const rate = (ms: number) => Math.round((ITEMS / ms) * 1000);
let stack: Stack | null = null;
try {
  let switchOnMs = Number.NaN;
  if (SWITCH_ON) {
    stack = await start({});
    await ingest(stack, "bench-existing", 12);
    await stack.close();
    stack = await start(embedding);
    const t0 = performance.now();
    await untilIndexed(stack, "bench-existing", t0);
    switchOnMs = performance.now() - t0;
  } else {
    stack = await start(embedding);
  }

  const t1 = performance.now();
  await ingest(stack, "bench-new", 13);
  const ingestMs = performance.now() - t1;
  const indexed = await untilIndexed(stack, "bench-new", t1);
  const indexMs = performance.now() - t1;

  console.log(
    `embedder ${embedding.EMBEDDING_MODEL} (${indexed.dimensions} dimensions), ${ITEMS} items each`,
  );
  if (SWITCH_ON)
    console.log(
      `switch-on: ${ITEMS} existing items indexed ${(switchOnMs / 1000).toFixed(1)} s after the first request (${rate(switchOnMs)} items/s)`,
    );
  console.log(
    `ingest: ${(ingestMs / 1000).toFixed(1)} s (${rate(ingestMs)} items/s); all indexed ${(indexMs / 1000).toFixed(1)} s after the first request (${rate(indexMs)} items/s)`,
  );
  console.log(
    JSON.stringify({
      items: ITEMS,
      switchOnMs: Math.round(switchOnMs),
      ingestMs: Math.round(ingestMs),
      indexMs: Math.round(indexMs),
    }),
  );
} finally {
  await stack?.close();
  await fake?.close();
  rmSync(persistTo, { recursive: true, force: true });
  if (process.env.BENCH_KEEP_DATABASE === "1") console.error(`[bench] kept the database ${databaseUrl}`);
  else await dropDatabase(ADMIN_URL, databaseUrl);
}
