/**
 * Search queries timed against two builds of the service on one kept database, interleaved (A B, then B A),
 * so both meet the same machine: this tree (B) and another checkout (A, e.g. the previous commit's).
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_REUSE_DATABASE=<a kept
 *   bench:search-scale database> BASE_CHECKOUT=/tmp/base ROUNDS=10 QUERIES='q=a&mode=keyword|people=b'
 *   npm run bench:search-ab
 * First compares the two builds' first page of each query (written to bench/results/search-ab-answers.json).
 * Prints, per query, each build's median and p90 (ms) and the ratio of the medians (B / A). The fake
 * embedder serves both stacks, so hybrid and semantic queries work too; EMBED_DELAY_MS=<ms> makes it take
 * that long over every embedding, as a hosted model's round trip does. When the two builds' migrations
 * differ (an index changed), BASE_DATABASE=<a copy of the kept database made before this tree's migrations
 * ran on it: CREATE DATABASE … TEMPLATE …> gives A its own database, each build then meeting its own schema.
 */
import { writeFileSync } from "node:fs";
import { ROOT } from "../scripts/lib/dev-secret";
import { signDevToken } from "../scripts/lib/token";
import { startFakeLlm } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, startBenchStack } from "./lib/bench-stack";
import { summarize } from "./lib/stats";

const BASE_CHECKOUT = process.env.BASE_CHECKOUT;
if (!BASE_CHECKOUT || !process.env.BENCH_REUSE_DATABASE) {
  throw new Error("set BASE_CHECKOUT (another checkout of this repository) and BENCH_REUSE_DATABASE");
}
const QUERIES = (process.env.QUERIES ?? "q=qwertzuiop&mode=keyword").split("|");
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const ANSWERS_FILE = `${ROOT}bench/results/search-ab-answers.json`;

const fake = await startFakeLlm();
const embedDelayMs = Number(process.env.EMBED_DELAY_MS ?? 0);
if (embedDelayMs > 0) {
  // Every embedding request names the model.
  const fault = {
    match: "fake-embedding",
    role: "embedding",
    fault: { kind: "slow", delayMs: embedDelayMs },
    times: 1e9,
  };
  const res = await fetch(`${fake.url}/__control/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(fault),
  });
  if (!res.ok) throw new Error(`the fake embedder's delay: ${res.status} ${await res.text()}`);
}
const vars = {
  EMBEDDING_MODEL: "openai:fake-embedding",
  EMBEDDING_BASE_URL: `${fake.url}/openai/v1`,
  OPENAI_API_KEY: "fake-key",
};
const base: { startBenchStack: typeof startBenchStack } = await import(
  `${BASE_CHECKOUT}/bench/lib/bench-stack.ts`
);
const port = Number(process.env.BENCH_PORT ?? 9561);
const database = process.env.BENCH_REUSE_DATABASE;
process.env.BENCH_PORT = String(port);
process.env.BENCH_REUSE_DATABASE = process.env.BASE_DATABASE ?? database;
const a = await base.startBenchStack("search-ab-a", vars);
process.env.BENCH_PORT = String(port + 1);
process.env.BENCH_REUSE_DATABASE = database;
const b = await startBenchStack("search-ab-b", vars);
const token = signDevToken(BENCH_SECRET, "bench-user");

async function answer(url: string, query: string): Promise<{ ms: number; body: string }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/items?${query}&limit=20`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${body.slice(0, 200)}`);
  return { ms: performance.now() - t0, body };
}

async function timed(url: string, query: string): Promise<number> {
  return (await answer(url, query)).ms;
}

/** A page's hits and cursor as compared: a fused cursor carries the instant of its first page, left out. */
function comparable(body: string): string {
  const page = JSON.parse(body) as { items: unknown[]; nextCursor: string | null };
  const cursor = page.nextCursor && JSON.parse(Buffer.from(page.nextCursor, "base64url").toString("utf8"));
  if (cursor && typeof cursor === "object") delete (cursor as Record<string, unknown>).a;
  return JSON.stringify({ items: page.items, cursor });
}

try {
  // Warm-up (each build's people view and caches), and the two builds' first pages compared.
  const differing: string[] = [];
  const answers: Record<string, { a: unknown; b: unknown }> = {};
  for (const query of QUERIES) {
    const [pa, pb] = [await answer(a.url, query), await answer(b.url, query)];
    if (comparable(pa.body) !== comparable(pb.body)) differing.push(query);
    answers[query] = { a: JSON.parse(pa.body), b: JSON.parse(pb.body) };
  }
  writeFileSync(ANSWERS_FILE, `${JSON.stringify(answers, null, 1)}\n`);
  console.log(
    differing.length ? `DIFFERENT answers: ${differing.join(" | ")}` : "the same answers from A and B",
  );
  const times = new Map(QUERIES.map((q) => [q, { a: [] as number[], b: [] as number[] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const query of QUERIES) {
      const t = times.get(query)!;
      const order = round % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
      for (const side of order) t[side].push(await timed(side === "a" ? a.url : b.url, query));
    }
  }
  console.log("  A med   B med  B / A    A p90   B p90  query");
  for (const [query, t] of times) {
    const [sa, sb] = [summarize(t.a), summarize(t.b)];
    const cells = [sa.median, sb.median, sb.median / sa.median, sa.p90, sb.p90];
    console.log(`${cells.map((c, i) => c.toFixed(i === 2 ? 2 : 1).padStart(7)).join(" ")}  ${query}`);
  }
} finally {
  await a.close();
  await b.close();
  await fake.close();
}
