/**
 * Where a cold GET /people goes, on a bench:people-scale database kept with BENCH_KEEP_DATABASE=1:
 *   BENCH_REUSE_DATABASE=<it> BENCH_PORT=9813 BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
 *     npx tsx bench/people-cold.ts 5
 * Each of READS reads follows a write to the user's newest item (so the view is resolved afresh) and prints
 * its wall time, the response size and the CPU time each process spent on it (bench/lib/proc-cpu.ts): wrangler's
 * node process (which in `wrangler dev` also receives every subrequest's response body for its inspector),
 * workerd (the driver's parsing and the resolution), this process (the Neon stand-in) and the PostgreSQL
 * backends (the evidence statement).
 */
import { writeFileSync } from "node:fs";
import pg from "pg";
import { signDevToken } from "../scripts/lib/token";
import { BENCH_SECRET, startBenchStack } from "./lib/bench-stack";
import { cpuDelta, loadAverage, stackCpu } from "./lib/proc-cpu";

const READS = Number(process.argv[2] ?? 5);
const USER = "bench-user";
const stack = await startBenchStack("people-cold", {}, process.env.BENCH_DATABASE_URL);
const database = new URL(stack.databaseUrl ?? "postgres://x/x").pathname.slice(1);
const db = new pg.Client({ connectionString: stack.databaseUrl });
await db.connect();
const token = signDevToken(BENCH_SECRET, USER);
const get = (path: string) => fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
try {
  await (await get("/people")).arrayBuffer();
  for (let i = 0; i < READS; i++) {
    await db.query(
      `update items set updated_at = now() where id = (
        select id from items where owner_id = $1 order by occurred_at desc limit 1)`,
      [USER],
    );
    await sleep(300);
    const first = stackCpu(process.pid, database);
    const t0 = performance.now();
    const res = await get("/people");
    const body = await res.arrayBuffer();
    const ms = performance.now() - t0;
    await sleep(300);
    const cpu = cpuDelta(first, stackCpu(process.pid, database));
    // BODY=<file> keeps the last answer, to compare two builds' views.
    if (process.env.BODY) writeFileSync(process.env.BODY, Buffer.from(body));
    const cpuMs = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round(v * 1000)]));
    console.log(
      JSON.stringify({
        status: res.status,
        ms: Math.round(ms),
        bytes: body.byteLength,
        cpuMs,
        load: loadAverage(),
      }),
    );
  }
} finally {
  await db.end();
  await stack.close();
}
