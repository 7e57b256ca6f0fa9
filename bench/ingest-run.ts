/**
 * One ingest run against a service already running: N (default 4,000) synthetic items of one user
 * (bench/lib/synthetic-workspace.ts) through POST /items, batches of 500, 4 in flight. Each run posts new
 * items (the run number is kept in COUNTER_FILE), so runs alternated between two stacks grow their databases
 * alike. Timed from outside as a whole process, A B A B ..., for a paired ratio:
 *   N=4000 npx tsx bench/ingest-run.ts http://127.0.0.1:8901 /tmp/a.count
 * The token is signed with the bench stacks' secret (bench/lib/bench-stack.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { postItems } from "../scripts/load-demo";
import { BENCH_SECRET } from "./lib/bench-stack";
import { syntheticWorkspace } from "./lib/synthetic-workspace";

const [url, counterFile] = process.argv.slice(2);
if (!url || !counterFile) throw new Error("usage: tsx bench/ingest-run.ts <service url> <counter file>");
const N = Number(process.env.N ?? 4000);
const BATCH = 500;
let run = 0;
try {
  run = Number(readFileSync(counterFile, "utf8"));
} catch {
  // The first run.
}
writeFileSync(counterFile, String(run + 1));
const ws = syntheticWorkspace({ anchor: Date.parse("2026-11-30T00:00:00Z") });
const batches: number[][] = [];
for (let i = 0; i < N; i += BATCH) {
  batches.push(Array.from({ length: Math.min(BATCH, N - i) }, (_, j) => run * N + i + j));
}
let next = 0;
const worker = async () => {
  while (next < batches.length) {
    const batch = batches[next++]!;
    await postItems({
      url,
      secret: BENCH_SECRET,
      userId: "ingest-user",
      items: batch.map((i) => ws.item(i)),
    });
  }
};
await Promise.all(Array.from({ length: 4 }, worker));
