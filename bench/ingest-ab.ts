/**
 * Paired ingest comparison of two running stacks (bench/ingest-ab-serve.ts): PAIRS times A then B, each one
 * `N=4000 npx tsx bench/ingest-run.ts` process, timed by wall clock and by the CPU time the stack spent on it
 * (bench/lib/proc-cpu.ts: the Neon stand-in, wrangler's node process, workerd and the database's PostgreSQL
 * backends, polled every 100 ms and for 1.5 s after the run exits), plus the client's own CPU. One JSON line
 * per run is appended to <out.jsonl>; the summary prints the ratio A/B pair by pair and its median.
 *   npx tsx bench/ingest-ab.ts 24 /tmp/pairs.jsonl /tmp/a.json /tmp/b.json
 */
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { childrenCpu, cpuDelta, loadAverage, stackCpu } from "./lib/proc-cpu";

const [pairsArg, out, aInfo, bInfo] = process.argv.slice(2);
if (!pairsArg || !out || !aInfo || !bInfo)
  throw new Error("usage: tsx bench/ingest-ab.ts <pairs> <out.jsonl> <a info> <b info>");
const OUT: string = out;
type Info = { url: string; databaseUrl: string; pid: number };
const infos: Record<"A" | "B", Info> = {
  A: JSON.parse(readFileSync(aInfo, "utf8")),
  B: JSON.parse(readFileSync(bInfo, "utf8")),
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Run = {
  side: "A" | "B";
  wall: number;
  server: number;
  groups: Record<string, number>;
  client: number;
  load: string;
};

async function run(side: "A" | "B"): Promise<Run> {
  const info = infos[side];
  const database = new URL(info.databaseUrl).pathname.slice(1);
  const first = stackCpu(info.pid, database);
  const last = { ...first };
  const poll = () => Object.assign(last, stackCpu(info.pid, database));
  const client0 = childrenCpu();
  const t0 = performance.now();
  const child = spawn("npx", ["tsx", "bench/ingest-run.ts", info.url, `${OUT}.${side}.count`], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, N: process.env.N ?? "4000" },
  });
  let code: number | null = null;
  child.on("exit", (c) => {
    code = c ?? 1;
  });
  while (code === null) {
    poll();
    await sleep(100);
  }
  const wall = (performance.now() - t0) / 1000;
  for (const end = performance.now() + 1500; performance.now() < end; await sleep(100)) poll();
  if (code !== 0) throw new Error(`the ${side} run exited ${code}`);
  const groups = cpuDelta(first, last);
  const server = Object.values(groups).reduce((a, b) => a + b, 0);
  const rec = { side, wall, server, groups, client: childrenCpu() - client0, load: loadAverage() };
  appendFileSync(OUT, `${JSON.stringify({ ...rec, at: new Date().toISOString() })}\n`);
  console.error(JSON.stringify(rec));
  return rec;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const pairs: [Run, Run][] = [];
for (let i = 0; i < Number(pairsArg); i++) pairs.push([await run("A"), await run("B")]);
const cpu = pairs.map(([a, b]) => a.server / b.server);
const wall = pairs.map(([a, b]) => a.wall / b.wall);
console.log(
  `${pairs.length} pairs: A/B stack CPU median ${median(cpu).toFixed(3)} (${Math.min(...cpu).toFixed(3)}-${Math.max(...cpu).toFixed(3)}), ` +
    `wall median ${median(wall).toFixed(3)}; A ${median(pairs.map(([a]) => a.server)).toFixed(2)} s, B ${median(pairs.map(([, b]) => b.server)).toFixed(2)} s of CPU a run`,
);
