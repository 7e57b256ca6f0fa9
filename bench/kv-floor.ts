/**
 * What a Workers KV read costs in `wrangler dev`, against a route of the same runtime that reads nothing:
 *   npm run bench:kv-floor
 * A worker with only a KV binding (bench/kv-floor/) answers: no read (404), one get, two gets in a row,
 * one bulk get of the same two keys (values of the sizes a cache hit reads: an admission, a 3.4 KB memory).
 * ROUNDS rounds of REQUESTS requests per route at CONCURRENCY connections, routes interleaved round by round;
 * req/s is the median over rounds. So the cache-hit ratio of bench:read-load can be compared with what one
 * KV read alone does to this runtime's throughput.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../scripts/lib/dev-secret";
import { runLoad } from "./lib/load";
import { summarize } from "./lib/stats";

const PORT = Number(process.env.BENCH_PORT ?? 8799);
const REQUESTS = Number(process.env.REQUESTS ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const ROUTES = ["/none", "/get", "/get-two", "/bulk-get"];

const persistTo = mkdtempSync(join(tmpdir(), "um-bench-kv-floor-"));
const wrangler = spawn(
  `${ROOT}node_modules/.bin/wrangler`,
  ["dev", "--local", "--ip", "127.0.0.1", "--port", String(PORT), "--persist-to", persistTo],
  {
    cwd: `${ROOT}bench/kv-floor`,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  },
);
try {
  await ready(wrangler);
  const base = `http://127.0.0.1:${PORT}`;
  await (await fetch(`${base}/fill`)).text();
  const rounds = new Map(ROUTES.map((route) => [route, [] as { rps: number; p50: number }[]]));
  for (const route of ROUTES)
    await runLoad({ total: 200, concurrency: CONCURRENCY, request: () => fetch(base + route) });
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of ROUTES) {
      const load = await runLoad({
        total: REQUESTS,
        concurrency: CONCURRENCY,
        request: () => fetch(base + route),
      });
      const expected = route === "/none" ? 404 : 200;
      if (load.statuses[expected] !== REQUESTS) throw new Error(`${route}: ${JSON.stringify(load.statuses)}`);
      rounds
        .get(route)!
        .push({ rps: (REQUESTS / load.wallMs) * 1000, p50: summarize(load.latenciesMs).median });
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const none = median(rounds.get("/none")!.map((r) => r.rps));
  const result = Object.fromEntries(
    [...rounds].map(([route, runs]) => {
      const rps = median(runs.map((r) => r.rps));
      return [
        route,
        {
          reqPerSecond: Math.round(rps),
          p50Ms: Math.round(median(runs.map((r) => r.p50)) * 10) / 10,
          ofNoRead: Math.round((rps / none) * 100) / 100,
          perRound: runs.map((r) => Math.round(r.rps)),
        },
      ];
    }),
  );
  console.log(
    JSON.stringify(
      {
        bench: "kv-floor",
        at: new Date().toISOString(),
        concurrency: CONCURRENCY,
        requests: REQUESTS,
        rounds: ROUNDS,
        routes: result,
      },
      null,
      2,
    ),
  );
} finally {
  if (wrangler.pid) process.kill(-wrangler.pid, "SIGINT");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  if (wrangler.exitCode === null && wrangler.pid) process.kill(-wrangler.pid, "SIGKILL");
  rmSync(persistTo, { recursive: true, force: true });
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      if (chunk.toString().includes("Ready on")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`wrangler dev exited with ${code} before it was ready`)));
  });
}
