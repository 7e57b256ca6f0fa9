/**
 * The read path under load, with and without the edge cache, against its baselines, in one run:
 *   npm run bench:read-load     (BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test: PostgreSQL is required)
 * Four `wrangler dev` stacks over one database:
 *   cache   the service as deployed (KV cache on); its agent generates ada's memory, so reads are hits
 *   nocache the same code with MEMORY_CACHE_ENABLED=false: every read is the indexed Postgres query
 *   far / far-nocache  the same two, with PostgreSQL 80 ms away (a TCP proxy adding 40 ms each way)
 * plus the floor: a minimal Node `http` + `pg` server doing the same token check and one-row read.
 * At 16 and 64 connections, ROUNDS rounds of REQUESTS requests per mode, interleaved (cache, no-database
 * route, nocache, floor, ...), so every ratio compares figures taken side by side; then the far pair at
 * 1 connection. Prints JSON (medians over rounds) and writes bench/results/read-load.json.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_USER_IDS, demoWorkspace } from "../fixtures/demo-workspace";
import { ROOT } from "../scripts/lib/dev-secret";
import { type Stack, startStack } from "../scripts/lib/stack";
import { signDevToken } from "../scripts/lib/token";
import { postItems, registerMembers } from "../scripts/load-demo";
import { startFakeLlm, workerVarsFor } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, startBenchStack } from "./lib/bench-stack";
import { startDelayProxy } from "./lib/delay-proxy";
import { startFloorServer } from "./lib/floor-server";
import { runLoad } from "./lib/load";
import { summarize } from "./lib/stats";

if (!process.env.BENCH_DATABASE_URL) throw new Error("bench:read-load needs BENCH_DATABASE_URL (PostgreSQL)");
const REQUESTS = Number(process.env.REQUESTS ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const FAR_REQUESTS = Number(process.env.FAR_REQUESTS ?? 200);
const ONE_WAY_MS = Number(process.env.ONE_WAY_MS ?? 40);
const BASE_PORT = Number(process.env.BENCH_PORT ?? 8799);

const fake = await startFakeLlm();
const llmVars = workerVarsFor(fake);
const closers: (() => Promise<void>)[] = [];
const sibling = async (name: string, port: number, databaseUrl: string, vars: Record<string, string>) => {
  const stack = await startStack({
    port,
    databaseUrl,
    vars: { AUTH_JWT_SECRET: BENCH_SECRET, ...llmVars, ...vars },
    persistTo: mkdtempSync(join(tmpdir(), `um-bench-${name}-`)),
    onOutput: () => {},
    log: (line) => console.error(`[bench ${name}] ${line}`),
  });
  closers.push(stack.close);
  return stack;
};

try {
  const cache = await startBenchStack("read-load", llmVars);
  closers.push(cache.close);
  const db = new URL(cache.databaseUrl);
  const nocache = await sibling("nocache", BASE_PORT + 1, cache.databaseUrl, {
    MEMORY_CACHE_ENABLED: "false",
  });
  const floor = await startFloorServer(cache.databaseUrl, BENCH_SECRET);
  closers.push(floor.close);

  await memoryFor(cache, "ada");
  const near: Record<string, unknown> = {};
  for (const concurrency of [16, 64]) {
    const modes: [string, string, string, boolean][] = [
      ["GET /memory, cache hit", cache.url, "/memory", true],
      ["no-database route, same runtime", cache.url, "/nope", false],
      ["GET /memory, no cache", nocache.url, "/memory", true],
      ["floor: Node http + pg", floor.url, "/memory", true],
    ];
    near[`c${concurrency}`] = await interleaved(modes, concurrency, REQUESTS, "ada");
  }

  // The database 80 ms away: both stacks reach PostgreSQL through the delaying proxy.
  const proxy = await startDelayProxy({ host: db.hostname, port: Number(db.port || 5432) }, ONE_WAY_MS);
  closers.push(proxy.close);
  const farUrl = new URL(cache.databaseUrl);
  farUrl.hostname = proxy.host;
  farUrl.port = String(proxy.port);
  const far = await sibling("far", BASE_PORT + 2, farUrl.toString(), {});
  const farNocache = await sibling("far-nocache", BASE_PORT + 3, farUrl.toString(), {
    MEMORY_CACHE_ENABLED: "false",
  });
  await memoryFor(far, "ben");
  const remote = await interleaved(
    [
      ["GET /memory, cache hit", far.url, "/memory", true],
      ["GET /memory, no cache", farNocache.url, "/memory", true],
    ],
    1,
    FAR_REQUESTS,
    "ben",
  );

  const result = {
    bench: "read-load",
    at: new Date().toISOString(),
    backend: "postgres",
    requestsPerRound: REQUESTS,
    rounds: ROUNDS,
    near,
    databaseAway: { roundTripMs: 2 * ONE_WAY_MS, requestsPerRound: FAR_REQUESTS, concurrency: 1, ...remote },
  };
  writeFileSync(`${ROOT}bench/results/read-load.json`, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
} finally {
  for (const close of closers.reverse()) await close().catch(() => {});
  await fake.close();
}

/** Registers the demo users, loads `user`'s items and waits for their first memory (made by the agent). */
async function memoryFor(stack: Stack, user: (typeof DEMO_USER_IDS)[number]): Promise<void> {
  await registerMembers({ url: stack.url, secret: BENCH_SECRET, userIds: DEMO_USER_IDS });
  await postItems({
    url: stack.url,
    secret: BENCH_SECRET,
    userId: user,
    items: demoWorkspace(new Date()).itemsByOwner[user],
  });
  const res = await fetch(`${stack.url}/memory?wait=30`, { headers: authOf(user) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`no memory for ${user}: ${res.status}`);
}

function authOf(user: string) {
  return { authorization: `Bearer ${signDevToken(BENCH_SECRET, user)}` };
}

/** ROUNDS rounds of every mode in turn; per mode the median over rounds of req/s, p50 and p99. */
async function interleaved(
  modes: [name: string, base: string, path: string, authenticated: boolean][],
  concurrency: number,
  total: number,
  user: string,
) {
  const samples = new Map<
    string,
    { rps: number; p50: number; p99: number; statuses: Record<number, number> }[]
  >();
  for (const [name, base, path, authenticated] of modes) {
    const headers = authenticated ? authOf(user) : {};
    await runLoad({
      total: Math.min(200, total),
      concurrency,
      request: () => fetch(`${base}${path}`, { headers }),
    });
    samples.set(name, []);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, base, path, authenticated] of modes) {
      const headers = authenticated ? authOf(user) : {};
      const run = await runLoad({ total, concurrency, request: () => fetch(`${base}${path}`, { headers }) });
      const stats = summarize(run.latenciesMs);
      samples.get(name)!.push({
        rps: (total / run.wallMs) * 1000,
        p50: stats.median,
        p99: stats.p99,
        statuses: run.statuses,
      });
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const round1 = (n: number) => Math.round(n * 10) / 10;
  return Object.fromEntries(
    [...samples].map(([name, runs]) => [
      name,
      {
        reqPerSecond: round1(median(runs.map((r) => r.rps))),
        p50Ms: round1(median(runs.map((r) => r.p50))),
        p99Ms: round1(median(runs.map((r) => r.p99))),
        perRound: runs.map((r) => round1(r.rps)),
        statuses: runs.map((r) => r.statuses),
      },
    ]),
  );
}
