/**
 * One stack of a paired ingest comparison (bench/ingest-ab.ts), kept running until SIGTERM: startBenchStack
 * of the checkout at <tree> (so the B side can be a copy built differently), its info (url, database, pid of
 * this process, which runs the Neon stand-in) written to <info file>. `without-people` drops what only people
 * need from its fresh database: the item_versions triggers and the people keys' index. Run with this
 * checkout's tsx so either tree's code is loaded:
 *   BENCH_PORT=9801 BENCH_DATABASE_PREFIX=hppl BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
 *     npx tsx bench/ingest-ab-serve.ts "$PWD" ingest_a /tmp/a.json
 *   BENCH_PORT=9802 … npx tsx bench/ingest-ab-serve.ts /tmp/b ingest_b /tmp/b.json without-people
 */
import { writeFileSync } from "node:fs";
import pg from "pg";

const [tree, name, infoFile, drop] = process.argv.slice(2);
if (!tree || !name || !infoFile)
  throw new Error("usage: tsx bench/ingest-ab-serve.ts <tree> <name> <info file> [without-people]");
const { startBenchStack } = (await import(
  `${tree}/bench/lib/bench-stack.ts`
)) as typeof import("./lib/bench-stack");
const stack = await startBenchStack(name, {}, process.env.BENCH_DATABASE_URL);
if (drop === "without-people") {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  for (const t of ["items_version_insert", "items_version_update", "items_version_delete"]) {
    await client.query(`drop trigger ${t} on items`);
  }
  await client.query("drop index items_people_keys_idx");
  await client.end();
}
writeFileSync(infoFile, JSON.stringify({ url: stack.url, databaseUrl: stack.databaseUrl, pid: process.pid }));
console.error(`[bench] ready ${stack.url}`);
const stop = async () => {
  await stack.close();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
setInterval(() => {}, 1 << 30);
