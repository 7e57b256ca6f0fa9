/**
 * Serving and orchestration through `wrangler dev`, on the machine's PostgreSQL or PGlite:
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/memory-serving.ts
 * 1. GET /memory of a fresh memory: READS requests at 16 concurrent connections (median, p99).
 * 2. 100 concurrent reads of a stale memory (with new material): how many runs they start.
 * 3. The daily sweep over 10,000 subjects (all unchanged; then with 1,000 changed, of which the invocation
 *    dispatches at most SWEEP_MAX_DISPATCH): wall time of one invocation, from its log line.
 * Generation runs against the fake LLM's reference policies.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { ROOT } from "../scripts/lib/dev-secret";
import { signDevToken } from "../scripts/lib/token";
import { postItems } from "../scripts/load-demo";
import { startFakeLlm, workerVarsFor } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, backend, startBenchStack } from "./lib/bench-stack";
import { runLoad } from "./lib/load";
import { summarize } from "./lib/stats";

const READS = Number(process.env.READS ?? 2000);
const SUBJECTS = 10_000;
const USER = "ada";
const STALE_USER = "ben";
const SMALL_WORKSPACE = [
  {
    source: "gmail",
    externalId: "m1",
    kind: "email" as const,
    title: "Payments migration",
    body: "Ada leads the payments migration; cut-over is on 3 March.",
    occurredAt: "2026-11-20T10:00:00Z",
  },
];

const fake = await startFakeLlm();
const stack = await startBenchStack("memory-serving", {
  ...workerVarsFor(fake),
  MIN_REFRESH_INTERVAL_MINUTES: "0",
  INGEST_DEBOUNCE_SECONDS: "3600",
});
const db = new pg.Client({ connectionString: stack.databaseUrl });
await db.connect();
const auth = { authorization: `Bearer ${signDevToken(BENCH_SECRET, USER)}` };
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${stack.url}${path}`, { headers: { ...auth, ...headers } });
const runCount = async (user = USER) =>
  Number((await db.query("select count(*) from memory_runs where subject_id = $1", [user])).rows[0].count);
const unfinished = async (user = USER) =>
  Number(
    (await db.query("select count(*) from memory_runs where subject_id = $1 and finished_at is null", [user]))
      .rows[0].count,
  );

try {
  // A small workspace: generation itself is benchmarked elsewhere (bench/memory.ts); this needs a memory.
  await postItems({ url: stack.url, secret: BENCH_SECRET, userId: USER, items: SMALL_WORKSPACE });
  const first = await get("/memory?wait=30");
  if (first.status !== 200) {
    // ?wait may end before a long first run: wait for the ledger.
    await waitFor(async () => (await runCount()) > 0 && (await unfinished()) === 0);
  }
  const ready = await get("/memory");
  if (ready.status !== 200) throw new Error(`no memory: ${ready.status} ${await ready.text()}`);

  // 1. Fresh reads.
  await runLoad({ total: 200, concurrency: 16, request: () => get("/memory") });
  const reads = await runLoad({ total: READS, concurrency: 16, request: () => get("/memory") });

  // 2. A stale memory with new material, read by 100 clients at once. It is written straight into the
  // database (two days old), as a memory that went stale while nobody read it would be.
  const ingested = await postItems({
    url: stack.url,
    secret: BENCH_SECRET,
    userId: STALE_USER,
    items: SMALL_WORKSPACE,
  });
  const itemId = ingested.items[0]!.id;
  const statements = JSON.stringify([{ section: "Work", text: "Leads payments", itemIds: [itemId] }]);
  await db.query(
    `with v as (
       insert into memory_versions (subject_id, markdown, statements, cited_item_ids, generator_model, judge_model, verdict, created_at)
       values ($1, '## Work\n- Leads payments [1]', $2::jsonb, array[$3::uuid], 'seed', 'seed',
               '{"accepted":true,"reason":"seed","unsupported":[]}'::jsonb, now() - interval '2 days')
       returning id)
     update memories set current_version_id = (select id from v), markdown = '## Work\n- Leads payments [1]',
            generated_at = now() - interval '2 days', status = 'ready', material_changed_at = now()
     where subject_id = $1`,
    [STALE_USER, statements, itemId],
  );
  const before = await runCount(STALE_USER);
  const staleAuth = { authorization: `Bearer ${signDevToken(BENCH_SECRET, STALE_USER)}` };
  const storm = await runLoad({
    total: 100,
    concurrency: 100,
    request: () => fetch(`${stack.url}/memory`, { headers: staleAuth }),
  });
  await waitFor(async () => (await runCount(STALE_USER)) > before && (await unfinished(STALE_USER)) === 0);
  await new Promise((r) => setTimeout(r, 3000)); // a duplicate run would have been recorded by now
  const stormRuns = (await runCount(STALE_USER)) - before;

  // 3. The sweep over 10,000 subjects.
  await db.query(
    `insert into memories (subject_id, current_version_id, markdown, generated_at, status, material_changed_at)
     select 'sweep-' || lpad(g::text, 5, '0'), gen_random_uuid(), '## x', now() - interval '2 days', 'ready',
            now() - interval '3 days'
     from generate_series(1, ${SUBJECTS}) g`,
  );
  const unchanged = await sweepOnce();
  await db.query(
    `update memories set checked_at = null,
       material_changed_at = case when subject_id <= 'sweep-01000' then now() else material_changed_at end
     where subject_id like 'sweep-%'`,
  );
  const withChanged = await sweepOnce();

  console.log(
    JSON.stringify(
      {
        bench: "memory-serving",
        backend: backend(),
        freshReadsMs: { ...summarize(reads.latenciesMs), statuses: reads.statuses, concurrency: 16 },
        staleStorm: {
          reads: 100,
          statuses: storm.statuses,
          latencyMs: summarize(storm.latenciesMs),
          runsStarted: stormRuns,
        },
        sweep10k: { allUnchanged: unchanged, thousandChanged: withChanged },
      },
      null,
      2,
    ),
  );
} finally {
  await db.end();
  await stack.close();
  await fake.close();
}

/** Triggers the Cron handler through wrangler dev and returns the sweep's own log line. */
async function sweepOnce(): Promise<Record<string, unknown>> {
  const logFile = `${ROOT}bench/results/memory-serving-wrangler.log`;
  const seen = readFileSync(logFile, "utf8").split('"msg":"sweep"').length;
  const t0 = performance.now();
  const res = await fetch(`${stack.url}/__scheduled?cron=0+3+*+*+*`);
  await res.arrayBuffer();
  const wallMs = Math.round(performance.now() - t0);
  let line: string | undefined;
  await waitFor(async () => {
    const parts = readFileSync(logFile, "utf8").split('"msg":"sweep"');
    if (parts.length <= seen) return false;
    line = `{"msg":"sweep"${parts.at(-1)!.split("\n")[0]}`;
    return true;
  });
  return { ...(JSON.parse(line!) as Record<string, unknown>), httpWallMs: wallMs };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 250));
  }
}
