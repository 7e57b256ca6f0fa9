/**
 * The daily sweep over 100,000 and 1,000,000 subjects, through `wrangler dev` on PostgreSQL:
 *   npm run bench:sweep-scale        (BENCH_DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/postgres)
 * For each size (SIZES, default 100000,1000000) the memories table is filled directly in Postgres: every
 * memory older than the freshness window (generated 25-48 h ago); 80% with no material change since
 * (checked_at bump only), 18% changed since, 2% never generated but with material (both need a run).
 * Subject ids are 37-character user ids in random key order. Then Cron invocations through wrangler's
 * `/__scheduled`, with wrangler.toml's settings (5,000 a page, 100 direct dispatches, the rest through
 * SWEEP_QUEUE) except the start spread (24 h, so almost no agent's alarm fires during the benchmark), in
 * two modes, each on a fresh stack:
 * - `producer-only`: wrangler.toml without its queue consumer, so the sweep's own cost is measured alone
 *   (wrangler dev runs the consumer and every Durable Object in the sweep's own workerd process: a batch
 *   of 900 new agents takes it over for 4-5 s, which a deployed Worker does not see);
 * - `as-configured`: wrangler.toml as it is; invoked again (up to INVOCATIONS, default 3) while the sweep
 *   reports itself incomplete, as the next day's Cron would (an invocation gets INVOCATION_TIMEOUT_S,
 *   default 420, to answer).
 * Reported per invocation: the sweep's own report (pages, checked, skipped, dispatched, enqueued, messages,
 * sends, page failures, duration), the statements the worker sent counted on the wire
 * (bench/lib/pg-wire-tap.ts) with their database time and the time between them, and what the database
 * holds afterwards (checked_at bumped). For as-configured also how far the queue consumer got in
 * DRAIN_TIMEOUT_S (default 60; DRAIN=0 skips it): wrangler dev 4.86's local queue at times stops
 * delivering after a few batches (its broker never logs the end of a batch whose consumer returned).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { ROOT } from "../scripts/lib/dev-secret";
import { startBenchStack } from "./lib/bench-stack";
import { type Statement, startWireTap } from "./lib/pg-wire-tap";
import { summarize } from "./lib/stats";

const SIZES = (process.env.SIZES ?? "100000,1000000").split(",").map(Number);
const MODES = (process.env.MODES ?? "producer-only,as-configured").split(",");
const INVOCATIONS = Number(process.env.INVOCATIONS ?? 3);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DRAIN = process.env.DRAIN !== "0";
const DRAIN_TIMEOUT_S = Number(process.env.DRAIN_TIMEOUT_S ?? 60);
const INVOCATION_TIMEOUT_S = Number(process.env.INVOCATION_TIMEOUT_S ?? 420);
const LOG_FILE = `${ROOT}bench/results/sweep-scale-wrangler.log`;
const RESULT_FILE = `${ROOT}bench/results/sweep-scale.json`;

const tap = await startWireTap(ADMIN_URL);
const producerOnly = producerOnlyConfig();
const runs: Record<string, unknown>[] = [];
try {
  for (const size of SIZES) {
    for (const mode of MODES) {
      // A fresh stack (database, wrangler, Durable Objects, local queue) for each run.
      const stack = await startBenchStack(
        "sweep-scale",
        { SWEEP_SPREAD_MINUTES: "1440" },
        tap.url,
        mode === "producer-only" ? producerOnly.path : undefined,
      );
      const direct = new URL(stack.databaseUrl);
      const target = new URL(ADMIN_URL);
      direct.hostname = target.hostname;
      direct.port = target.port;
      const db = new pg.Client({ connectionString: direct.toString() });
      await db.connect();
      try {
        const seedMs = await seed(db, size);
        const invocations: Record<string, unknown>[] = [];
        const seen = readFileSync(LOG_FILE, "utf8").length;
        const t0 = performance.now();
        for (let i = 1; i <= (mode === "as-configured" ? INVOCATIONS : 1); i++) {
          const invocation = await sweepOnce(db, stack.url, `${size}-${mode}-${i}`);
          invocations.push(invocation);
          if (invocation.http.status !== 200 || invocation.report.complete !== false) break;
        }
        const enqueued = invocations.reduce(
          (n, inv) => n + Number((inv.report as { enqueued?: number }).enqueued ?? 0),
          0,
        );
        const drain = mode === "as-configured" && DRAIN ? await drainQueue(seen, enqueued, t0) : undefined;
        const run = { subjects: size, mode, seedMs, invocations, drain };
        runs.push(run);
        console.error(`[bench] ${JSON.stringify(run)}`);
      } finally {
        await db.end();
        await stack.close();
      }
    }
  }
  const result = {
    bench: "sweep-scale",
    backend: "postgres",
    settings: { SWEEP_PAGE_SIZE: 5000, SWEEP_MAX_DISPATCH: 100, SWEEP_SPREAD_MINUTES: 1440 },
    runs,
  };
  writeFileSync(RESULT_FILE, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
} finally {
  producerOnly.remove();
  await tap.close();
}

/** wrangler.toml without its queue consumer, in a folder of its own (main made absolute). */
function producerOnlyConfig(): { path: string; remove: () => void } {
  const toml = readFileSync(`${ROOT}wrangler.toml`, "utf8");
  const withoutConsumer = toml.replace(/\[\[queues\.consumers\]\][\s\S]*?(?=\n\s*\n|\n#|\n\[)/, "");
  if (withoutConsumer === toml) throw new Error("wrangler.toml has no [[queues.consumers]] block any more");
  const folder = mkdtempSync(join(tmpdir(), "um-bench-sweep-config-"));
  const path = join(folder, "wrangler.toml");
  writeFileSync(path, withoutConsumer.replace(/^main = "(.*)"$/m, `main = "${ROOT}$1"`));
  return { path, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** Refills memories with `size` stale subjects (see above); returns how long it took. */
async function seed(db: pg.Client, size: number): Promise<number> {
  const t0 = performance.now();
  await db.query("truncate memories");
  await db.query("delete from sweep_cursors");
  await db.query(
    `insert into memories (subject_id, current_version_id, markdown, generated_at, status, material_changed_at)
     select 'user-' || md5(g::text),
            case when kind = 'missing' then null else gen_random_uuid() end,
            case when kind = 'missing' then null else '## Work' || chr(10) || '- Leads payments [1]' end,
            case when kind = 'missing' then null else generated end,
            case when kind = 'missing' then 'none' else 'ready' end,
            case when kind = 'unchanged' then generated - interval '1 day' else now() - interval '1 hour' end
     from (
       select g, now() - interval '25 hours' - (abs(hashint4(g * 7)) % 82800) * interval '1 second' as generated,
              case when abs(hashint4(g)) % 100 < 80 then 'unchanged'
                   when abs(hashint4(g)) % 100 < 98 then 'changed' else 'missing' end as kind
       from generate_series(1, $1::int) g
     ) s`,
    [size],
  );
  await db.query("vacuum analyze memories");
  return Math.round(performance.now() - t0);
}

async function sweepOnce(db: pg.Client, url: string, label: string) {
  const startedAt = new Date();
  const seen = readFileSync(LOG_FILE, "utf8").length;
  const before = tap.count();
  tap.startCapture();
  const t0 = performance.now();
  const res = await get(`${url}/__scheduled?cron=0+3+*+*+*`, INVOCATION_TIMEOUT_S * 1000);
  const httpWallMs = Math.round(performance.now() - t0);
  const report: Record<string, unknown> =
    res.status === 200
      ? await waitForLine(seen, '"msg":"sweep"', 60_000)
      : { complete: false, failed: res.status === 0 ? "no answer in time" : res.body.slice(0, 500) };
  const statements = tap.stopCapture();
  writeFileSync(
    `${ROOT}bench/results/sweep-scale-statements-${label}.json`,
    JSON.stringify(
      statements.map((st) => ({
        at: Math.round(st.at - t0),
        ms: st.durationMs === undefined ? null : Math.round(st.durationMs),
        kind: kindOf(st),
      })),
    ),
  );
  const roundTripsOnWire = tap.count() - before;

  const { rows } = await db.query(
    `select count(*) filter (where checked_at >= $1)::int as bumped,
            count(*) filter (where checked_at is null)::int as not_bumped
     from memories`,
    [startedAt.toISOString()],
  );
  // The sweep's own statements (agents whose spread start came up may run meanwhile: counted apart).
  const own = statements.filter((s) => kindOf(s) === "page" || kindOf(s).startsWith("cursor"));
  const ownDbMs = own.reduce((n, s) => n + (s.durationMs ?? 0), 0);
  // Between two of its statements the worker was busy elsewhere: the HTTP hop to the database,
  // parsing, dispatching, sending to the queue.
  const gaps = own.slice(1).map((s, i) => s.at - (own[i]!.at + (own[i]!.durationMs ?? 0)));
  return {
    http: { status: res.status, answer: res.body.slice(0, 80), wallMs: httpWallMs },
    report,
    database: {
      statementsOnWire: roundTripsOnWire,
      sweepStatements: own.length,
      byKind: byKind(statements),
      pageMs: summarize(own.filter((s) => kindOf(s) === "page").map((s) => s.durationMs ?? 0)),
      sweepDbMs: Math.round(ownDbMs),
      betweenStatementsMs: { ...summarize(gaps), total: Math.round(gaps.reduce((n, g) => n + g, 0)) },
      checkedAtBumped: rows[0].bumped,
      notBumped: rows[0].not_bumped,
    },
  };
}

/** Waits for the queue consumer's sweep_batch lines to account for every enqueued subject. */
async function drainQueue(seen: number, enqueued: number, t0: number) {
  if (enqueued === 0) return { enqueued, dispatched: 0, batches: 0, ms: 0 };
  const deadline = Date.now() + DRAIN_TIMEOUT_S * 1000;
  let dispatched = 0;
  let failed = 0;
  let batches = 0;
  for (;;) {
    const lines = logLines(seen, '"msg":"sweep_batch"');
    dispatched = lines.reduce((n, l) => n + Number(l.dispatched ?? 0), 0);
    failed = lines.reduce((n, l) => n + Number(l.failed ?? 0), 0);
    batches = lines.length;
    if (dispatched >= enqueued || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const ms = Math.round(performance.now() - t0);
  return {
    enqueued,
    dispatched,
    failed,
    batches,
    complete: dispatched >= enqueued,
    msSinceSweepStart: ms,
    subjectsPerSecond: Math.round((dispatched / ms) * 1000),
  };
}

/** A GET without fetch's 300-second header deadline; status 0 when `timeoutMs` passed first. */
function get(url: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(url, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy();
      resolve({ status: 0, body: "" });
    });
    req.on("error", () => resolve({ status: 0, body: "" }));
    req.end();
  });
}

function kindOf(s: Statement): string {
  if (/^\s*with page as/.test(s.query)) return "page";
  if (/sweep_cursors/.test(s.query)) return /^\s*select/i.test(s.query) ? "cursor load" : "cursor save";
  return s.query.trim().split(/\s+/).slice(0, 3).join(" ");
}

function byKind(statements: Statement[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of statements) out[kindOf(s)] = (out[kindOf(s)] ?? 0) + 1;
  return out;
}

function logLines(seen: number, marker: string): Record<string, unknown>[] {
  const text = readFileSync(LOG_FILE, "utf8").slice(seen);
  return text
    .split("\n")
    .filter((line) => line.includes(marker))
    .map((line) => JSON.parse(line.slice(line.indexOf("{"))) as Record<string, unknown>);
}

async function waitForLine(
  seen: number,
  marker: string,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [line] = logLines(seen, marker);
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no ${marker} line within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
