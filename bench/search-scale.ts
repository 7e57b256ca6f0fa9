/**
 * Search over 100,000 items of one user, per query shape, through `wrangler dev` on PostgreSQL:
 *   npm run bench:search-scale        (BENCH_DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/postgres)
 * 1. Ingests ITEMS synthetic items (bench/lib/synthetic-workspace.ts) of one user through POST /items in
 *    batches of 500, INGEST_CONCURRENCY in flight, source by source and oldest first as connector
 *    backfills arrive; plus a colleague's 2,000 items, half of them shared with the user. Items/s overall
 *    and over the last 10% (the table near 100,000 rows). Then VACUUM ANALYZE, as autovacuum would.
 * 2. Picks query words and people by how many items they match (measured, not assumed).
 *    Then OTHER_USERS other users' items (OTHER_ITEMS each), inserted directly, so the table is not one
 *    user's: a query must not pay for everyone else's rows.
 * 3. SAMPLES requests per shape at 1 connection, p50/p99/max, next to the floor (a query that matches
 *    nothing: what the stack costs around any search); EXPLAIN (ANALYZE, BUFFERS) of each shape's
 *    representative statement, captured on the wire as the worker sent it, into
 *    bench/results/search-scale-plans.txt.
 * With SEMANTIC (default on; SEMANTIC=0 for keyword only) the worker embeds with the fake LLM's
 * deterministic embeddings: the user's and the colleague's items are ingested with no model, then the
 * worker restarts with the model switched on, whose backfill embeds them through the embeddings queue and
 * builds the HNSW index once; the time until every item of the user is indexed (GET /admin/embeddings) and
 * until the index is valid gives the embedding throughput. The keyword shapes ask for mode=keyword, and
 * hybrid and semantic shapes are timed beside them.
 * The worker runs as deployed, without wrangler's inspector (BENCH_INSPECTOR=1 keeps it).
 * BENCH_KEEP_DATABASE=1 keeps the database (100,000 items take about 5 minutes to ingest and embed here);
 * BENCH_REUSE_DATABASE=<its name> then times the shapes again on it without loading anything (with
 * BENCH_RESUME=1: finishes a load that was cut short, see below), and SHAPES=<names> only some shapes.
 * The JSON result gives each shape's p50/p99/max and each of its queries' median (perQuery).
 */
import { writeFileSync } from "node:fs";
import pg from "pg";
import { ROOT } from "../scripts/lib/dev-secret";
import { signDevToken } from "../scripts/lib/token";
import { postItems } from "../scripts/load-demo";
import { startFakeLlm } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, startBenchStack } from "./lib/bench-stack";
import { embeddingStatus, pauseBeforeRead } from "./lib/embedding-status";
import { runLoad } from "./lib/load";
import { type Statement, startWireTap } from "./lib/pg-wire-tap";
import { summarize } from "./lib/stats";
import { syntheticWorkspace } from "./lib/synthetic-workspace";

const ITEMS = Number(process.env.ITEMS ?? 100_000);
const SAMPLES = Number(process.env.SAMPLES ?? 300);
const INGEST_CONCURRENCY = Number(process.env.INGEST_CONCURRENCY ?? 4);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const USER = "bench-user";
const PEER = "bench-peer";
const PEER_ITEMS = 2000;
const BATCH = 500;
const ANCHOR = Date.parse("2026-11-30T00:00:00Z");
const DAY = 24 * 3600_000;
const PLANS_FILE = `${ROOT}bench/results/search-scale-plans.txt`;
const RESULT_FILE = `${ROOT}bench/results/search-scale.json`;
const OTHER_USERS = Number(process.env.OTHER_USERS ?? 10);
const OTHER_ITEMS = Number(process.env.OTHER_ITEMS ?? 10_000);
/** Shares of the user's items a query word should match (nearest found). */
const WORD_TARGETS = [0.25, 0.12, 0.06, 0.03, 0.01, 0.003, 0.001, 0.0003];
const PERSON_RANKS = [0, 1, 5, 20, 100, 300, 1000, 1999];
const SEMANTIC = process.env.SEMANTIC !== "0";
const INDEX_TIMEOUT_MS = Number(process.env.INDEX_TIMEOUT_MS ?? 3_600_000);
/** SHAPES=<name>,<name>: times only these shapes (their names as printed), e.g. on a reused database. */
const ONLY_SHAPES = process.env.SHAPES?.split(",");

const tap = await startWireTap(ADMIN_URL);
const fake = SEMANTIC ? await startFakeLlm() : null;
const embedder: Record<string, string> = fake
  ? {
      EMBEDDING_MODEL: "openai:fake-embedding",
      EMBEDDING_BASE_URL: `${fake.url}/openai/v1`,
      OPENAI_API_KEY: "fake-key",
    }
  : {};
const reused = process.env.BENCH_REUSE_DATABASE !== undefined;
// A fresh load ingests with no model, then switches the model on (see the header).
// As deployed: wrangler's inspector copies every subrequest's body to its Node.js process, which costs a
// search with more subrequests more (BENCH_INSPECTOR=1 keeps it).
const stack = await startBenchStack(
  "search-scale",
  reused ? embedder : {},
  tap.url,
  undefined,
  process.env.BENCH_INSPECTOR === "1",
);
const direct = new URL(stack.databaseUrl);
const target = new URL(ADMIN_URL);
direct.hostname = target.hostname;
direct.port = target.port;
const db = new pg.Client({ connectionString: direct.toString() });
await db.connect();
const token = signDevToken(BENCH_SECRET, USER);
const ws = syntheticWorkspace({ anchor: ANCHOR });
const plans: string[] = [`search-scale plans, ${new Date().toISOString()}, ${ITEMS} items of ${USER}`];

try {
  // 1. Ingest, then (with an embedder) wait until the embeddings queue has indexed every item.
  // A reused database (BENCH_REUSE_DATABASE, kept by an earlier run) already holds everything.
  // BENCH_RESUME=1 with it: a database whose load was cut short (the user's items are in): what is left
  // of the indexing, then the others' items if missing, then VACUUM ANALYZE.
  const resumed = reused && process.env.BENCH_RESUME === "1";
  const ingest = reused ? null : await ingestAll();
  if (!reused) {
    await addPeer();
    if (fake) await stack.restart(embedder);
  }
  const embedding = fake && (ingest || resumed) ? await untilIndexed() : null;
  const tOthers = performance.now();
  const others = await db.query("select count(*)::int as n from items where owner_id like 'other-%'");
  if (!reused || (resumed && others.rows[0].n === 0)) await addOtherUsers();
  const othersMs = Math.round(performance.now() - tOthers);
  const tVacuum = performance.now();
  if (!reused || resumed) await db.query("vacuum analyze items, item_chunks");
  const vacuumMs = Math.round(performance.now() - tVacuum);

  // 2. Queries chosen by what they match.
  const words = await pickWords();
  const people = await pickPeople();
  const shapes = buildShapes(words, people);

  // 3. Every shape, timed through the API.
  const timed = await measure(shapes);

  const sizes = (
    await db.query(
      `select relname as name, pg_size_pretty(pg_relation_size(oid)) as size from pg_class
       where relname in ('items', 'items_search_idx', 'items_owner_occurred_id_idx', 'items_people_trgm_idx',
                         'items_shared_with_idx') order by relname`,
    )
  ).rows;
  const result = {
    bench: "search-scale",
    backend: "postgres",
    items: {
      [USER]: ITEMS,
      [PEER]: PEER_ITEMS,
      sharedWithUser: PEER_ITEMS / 2,
      otherUsers: OTHER_USERS * OTHER_ITEMS,
    },
    ingest,
    embedding,
    otherUsersInsertMs: othersMs,
    vacuumAnalyzeMs: vacuumMs,
    sizes,
    words,
    people,
    samplesPerShape: SAMPLES,
    shapes: timed,
    plansFile: PLANS_FILE,
  };
  writeFileSync(PLANS_FILE, `${plans.join("\n\n")}\n`);
  writeFileSync(RESULT_FILE, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
  console.log("\nshape                 p50 / p99 / max (ms)");
  for (const s of shapes) {
    const t = timed[s.name];
    if (!t) continue;
    const slowest = `slowest: ${t.slowestQuery.query} (median ${t.slowestQuery.median} ms)`;
    console.log(`${s.name.padEnd(20)} ${fmt(t.median)} / ${fmt(t.p99)} / ${fmt(t.max)}   ${slowest}`);
  }
} finally {
  await db.end();
  await stack.close();
  await tap.close();
  await fake?.close();
}

interface Shape {
  name: string;
  /** Query strings without limit (20, the default, is added); a page shape's carry a cursor. */
  queries: string[];
  /** Collects cursors for the page shapes before timing (pages 2-5 of each listed query). */
  pages?: string[];
  /** The query whose statement is explained. */
  explain: string;
}

async function ingestAll() {
  // Source by source, each oldest first: how connector backfills arrive.
  const order = Array.from({ length: ITEMS }, (_, i) => {
    const item = ws.item(i);
    return { i, source: item.source, at: item.occurredAt };
  }).sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : a.at < b.at ? -1 : 1));
  const batches: number[][] = [];
  for (let i = 0; i < order.length; i += BATCH) batches.push(order.slice(i, i + BATCH).map((o) => o.i));
  const doneAt: number[] = new Array(batches.length);
  const statuses: Record<string, number> = {};
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < batches.length) {
      const b = next++;
      const answer = await postItems({
        url: stack.url,
        secret: BENCH_SECRET,
        userId: USER,
        items: batches[b]!.map((i) => ws.item(i)),
      });
      // A batch retried after a 503 (postItems retries) may already have been committed: unchanged then.
      for (const it of answer.items) statuses[it.status] = (statuses[it.status] ?? 0) + 1;
      doneAt[b] = performance.now();
    }
  };
  await Promise.all(Array.from({ length: INGEST_CONCURRENCY }, worker));
  const totalMs = performance.now() - t0;
  const lastTenth = Math.max(1, Math.floor(batches.length / 10));
  const tailStart = doneAt[batches.length - lastTenth - 1] ?? t0;
  const tailMs = (doneAt[batches.length - 1] ?? t0) - tailStart;
  const tailItems = batches.slice(-lastTenth).reduce((n, b) => n + b.length, 0);
  return {
    mode: "POST /items",
    batchSize: BATCH,
    concurrency: INGEST_CONCURRENCY,
    items: ITEMS,
    seconds: Math.round(totalMs / 100) / 10,
    itemsPerSecond: Math.round((ITEMS / totalMs) * 1000),
    lastTenthItemsPerSecond: Math.round((tailItems / tailMs) * 1000),
    statuses,
  };
}

/** The peer's items (half shared with the user) through the API. */
async function addPeer(): Promise<void> {
  const peer = syntheticWorkspace({ anchor: ANCHOR, seed: 99 });
  for (let i = 0; i < PEER_ITEMS; i += BATCH) {
    const items = Array.from({ length: Math.min(BATCH, PEER_ITEMS - i) }, (_, j) => {
      const item = peer.item(i + j);
      return (i + j) % 2 === 0 ? { ...item, sharedWith: [USER] } : item;
    });
    await postItems({ url: stack.url, secret: BENCH_SECRET, userId: PEER, items });
  }
}

/** The other users' items, inserted directly (no chunks). */
async function addOtherUsers(): Promise<void> {
  for (let u = 0; u < OTHER_USERS; u++) await insertDirectly(`other-${u}`, OTHER_ITEMS, 1000 + u);
}

/**
 * From the worker's first request with the model on: polls GET /admin/embeddings until none of the user's
 * items waits, then the database until the model's HNSW index (built once after the backfill) is valid.
 */
async function untilIndexed() {
  const admin = signDevToken(BENCH_SECRET, USER, ["memory:read", "items:write", "admin"]);
  const t0 = performance.now();
  const seconds = () => Math.round((performance.now() - t0) / 100) / 10;
  for (;;) {
    const status = await embeddingStatus(stack.url, { authorization: `Bearer ${admin}` });
    if (status && (status.pending === 0 || performance.now() - t0 > INDEX_TIMEOUT_MS)) {
      const searchable = seconds();
      let vectorIndex = status.vectorIndex;
      while (vectorIndex !== "ready" && performance.now() - t0 <= INDEX_TIMEOUT_MS) {
        await new Promise((r) => setTimeout(r, 1000));
        const index = await embeddingStatus(stack.url, { authorization: `Bearer ${admin}` });
        vectorIndex = index?.vectorIndex ?? vectorIndex;
      }
      return {
        mode: "EMBED_QUEUE, fake embedder, the model switched on for the ingested items",
        ...status,
        vectorIndex,
        secondsToAllIndexed: searchable,
        itemsPerSecond: Math.round(status.indexed / searchable),
        secondsToVectorIndex: seconds(),
      };
    }
    if (status) console.error(`[bench] embedded ${status.indexed}/${status.items} (${seconds()} s)`);
    await pauseBeforeRead(status?.items ?? 0);
  }
}

async function pickWords(): Promise<{ word: string; matches: number; share: number }[]> {
  const ranks = [
    ...Array.from({ length: 60 }, (_, i) => 20 + i * 8),
    ...[600, 800, 1000, 1500, 2000, 3000, 5000, 8000, 12000, 20000, 28000],
  ].filter((r) => r < ws.vocabularySize);
  const measured: { word: string; matches: number; share: number }[] = [];
  for (const rank of ranks) {
    const word = ws.word(rank);
    const { rows } = await db.query(
      `select count(*)::int as n from items where owner_id = $1 and search @@ websearch_to_tsquery('english', $2)`,
      [USER, word],
    );
    const matches = rows[0].n as number;
    if (matches > 0) measured.push({ word, matches, share: matches / ITEMS });
  }
  return WORD_TARGETS.map((share) => {
    const best = measured.reduce((a, b) =>
      Math.abs(Math.log(b.share / share)) < Math.abs(Math.log(a.share / share)) ? b : a,
    );
    return { ...best, share: Math.round(best.share * 10000) / 10000 };
  });
}

async function pickPeople(): Promise<{ person: string; matches: number }[]> {
  const names = PERSON_RANKS.map((r) => ws.person(r).name.toLowerCase());
  const last = ws.person(50).name.split(" ")[1]!.toLowerCase();
  const domain = ws.person(3).email.split("@")[1]!;
  const out: { person: string; matches: number }[] = [];
  for (const person of [...names, last, domain]) {
    const { rows } = await db.query(
      `select count(*)::int as n from items where owner_id = $1
         and (author ilike $2 or exists (select 1 from unnest(participants) p(name) where p.name ilike $2))`,
      [USER, `%${person}%`],
    );
    out.push({ person, matches: rows[0].n as number });
  }
  return out;
}

function buildShapes(words: { word: string }[], people: { person: string }[]): Shape[] {
  const w = words.map((x) => x.word);
  const p = people.map((x) => encodeURIComponent(x.person));
  const q = (text: string) => `q=${encodeURIComponent(text)}`;
  const iso = (ms: number) => new Date(ms).toISOString();
  const window = (endDaysAgo: number, days: number) =>
    `since=${iso(ANCHOR - (endDaysAgo + days) * DAY)}&until=${iso(ANCHOR - endDaysAgo * DAY)}`;
  const windows = [
    window(0, 1),
    window(3, 7),
    window(30, 30),
    window(200, 30),
    window(700, 30),
    window(100, 90),
    window(0, 365),
    window(400, 365),
    `since=${iso(ANCHOR - 30 * DAY)}`,
    `until=${iso(ANCHOR - 730 * DAY)}`,
  ];
  const [w25, w12, w6, w3, w1, w03, w01] = w;
  const keyword: Shape[] = [
    {
      // What the stack costs around a query that finds nothing: the floor under every other shape.
      name: "no match (floor)",
      queries: [q("xyzzyplugh"), q("qwertzuiop"), "people=nobody-at-all"],
      explain: q("xyzzyplugh"),
    },
    {
      name: "text",
      queries: [
        ...w.map(q),
        q(`${w12} ${w3}`),
        q(`${w6} ${w1}`),
        q(`"${w25} ${w12}"`),
        q(`${w03} or ${w01}`),
        q(`${w12} -${w6}`),
      ],
      explain: q(w25!),
    },
    {
      name: "text+kind",
      queries: [w12, w3, w03].flatMap((x) =>
        ["kind=email", "kind=doc", "kind=task,note"].map((k) => `${q(x!)}&${k}`),
      ),
      explain: `${q(w12!)}&kind=email`,
    },
    {
      name: "text+people",
      queries: [w12, w3, w03].flatMap((x) => [p[0], p[3], p[6]].map((person) => `${q(x!)}&people=${person}`)),
      explain: `${q(w12!)}&people=${p[3]}`,
    },
    {
      name: "people",
      queries: [...p.map((person) => `people=${person}`), `people=${p[2]},${p[6]}`],
      explain: `people=${p[6]}`,
    },
    { name: "date window", queries: windows, explain: windows[3]! },
    {
      name: "text+date window",
      queries: [w25, w3, w03].flatMap((x) => [windows[2], windows[6]].map((d) => `${q(x!)}&${d}`)),
      explain: `${q(w25!)}&${windows[2]}`,
    },
    {
      name: "kind",
      queries: ["kind=email", "kind=contact", "kind=pull_request,file", `kind=doc&${windows[7]}`],
      explain: "kind=contact",
    },
    {
      name: "page (ranked)",
      queries: [],
      pages: [q(w25!), q(w6!), q(w1!), `${q(w3!)}&people=${p[0]}`],
      explain: q(w25!),
    },
    {
      name: "page (newest first)",
      queries: [],
      pages: ["", `people=${p[3]}`, "kind=contact", windows[6]!],
      explain: "",
    },
  ];
  if (!SEMANTIC) return keyword;
  // With an embedder the default mode is hybrid: the shapes above ask for keyword, and the fused and
  // vector-only searches are timed on the same words, alone and with a filter.
  const withMode = (mode: string) => (query: string) => (query ? `${query}&mode=${mode}` : `mode=${mode}`);
  const meaning = (mode: string): Shape => ({
    name: mode,
    queries: [
      ...[w25, w6, w1, w03].map((x) => q(x!)),
      q(`${w12} ${w3}`),
      `${q(w12!)}&kind=email`,
      `${q(w3!)}&people=${p[3]}`,
      `${q(w25!)}&${windows[2]}`,
    ].map(withMode(mode)),
    explain: withMode(mode)(q(w12!)),
  });
  const asKeyword = withMode("keyword");
  return [
    ...keyword.map((shape) => ({
      ...shape,
      queries: shape.queries.map(asKeyword),
      pages: shape.pages?.map(asKeyword),
      explain: asKeyword(shape.explain),
    })),
    meaning("hybrid"),
    meaning("semantic"),
  ];
}

async function measure(shapes: Shape[]) {
  const out: Record<
    string,
    ReturnType<typeof summarize> & {
      queries: number;
      slowestQuery: { query: string; median: number };
      perQuery: { query: string; median: number }[];
      statuses: Record<number, number>;
    }
  > = {};
  for (const shape of shapes) {
    if (ONLY_SHAPES && !ONLY_SHAPES.includes(shape.name)) continue;
    const queries = shape.pages ? await pageQueries(shape.pages) : shape.queries;
    for (const query of queries) await (await search(query)).arrayBuffer(); // warm-up
    const load = await runLoad({
      total: SAMPLES,
      concurrency: 1,
      request: (i) => search(queries[i % queries.length]!),
    });
    // One connection: the i-th latency is the i-th request's, of query i mod n.
    const perQuery = queries.map((query, q) => ({
      query: decodeURIComponent(query).slice(0, 120),
      median: summarize(load.latenciesMs.filter((_, i) => i % queries.length === q)).median,
    }));
    const slowest = perQuery.reduce((a, b) => (b.median > a.median ? b : a));
    out[shape.name] = {
      ...summarize(load.latenciesMs),
      queries: queries.length,
      slowestQuery: slowest,
      perQuery,
      statuses: load.statuses,
    };
    const explained = shape.pages ? queries[queries.length > 1 ? 1 : 0]! : shape.explain;
    plans.push(await explain(`${shape.name}: GET /items?${explained}`, explained));
  }
  return out;
}

/** Cursor queries of pages 2-5 of each listed query. */
async function pageQueries(firstPages: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const first of firstPages) {
    let cursor: string | null = null;
    for (let page = 1; page <= 4; page++) {
      const res = await search(cursor ? `${first}&cursor=${cursor}` : first);
      const body = (await res.json()) as { nextCursor: string | null };
      cursor = body.nextCursor;
      if (!cursor) break;
      out.push(`${first}&cursor=${cursor}`);
    }
  }
  return out;
}

function search(query: string): Promise<Response> {
  return fetch(`${stack.url}/items?${query}${query ? "&" : ""}limit=20`, {
    headers: { authorization: `Bearer ${token}` },
  });
}

/**
 * The statements the worker sends for `query` (a hybrid search sends its channels at once, on two
 * connections), captured on the wire, each with the settings its transaction set before it.
 */
async function captureStatements(query: string): Promise<{ statement: Statement; settings: string[] }[]> {
  tap.startCapture();
  const res = await search(query);
  await res.arrayBuffer();
  const statements = tap.stopCapture();
  // A ranked search's batch sets its transaction's settings first (SET LOCAL: deadline, vector scan, JIT).
  const isSetting = (s: Statement) => /^\s*set local /i.test(s.query);
  const isQuery = (s: Statement) =>
    /^\s*(with|select|\()/i.test(s.query) && !/__drizzle_migrations/.test(s.query);
  const found = statements.flatMap((statement, i) => {
    if (!isQuery(statement)) return [];
    const before = statements.slice(0, i).filter((s) => s.connection === statement.connection);
    const lastQuery = before.findLastIndex((s) => !isSetting(s));
    const settings = before
      .slice(lastQuery + 1)
      .filter(isSetting)
      .map((s) => s.query);
    return [{ statement, settings }];
  });
  if (res.status !== 200 || found.length === 0)
    throw new Error(`no search statement for ${query} (${res.status})`);
  return found;
}

async function explain(title: string, query: string): Promise<string> {
  const explained: string[] = [];
  for (const { statement, settings } of await captureStatements(query)) {
    const sqlText = statement.query;
    await db.query("begin");
    try {
      for (const setting of settings) await db.query(setting);
      const { rows } = await db.query(`explain (analyze, buffers) ${sqlText}`, statement.params);
      const plan = rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n");
      const header = `${settings.map((x) => `${x};\n`).join("")}${sqlText}`;
      explained.push(`---- ${title}\n${header}\n-- parameters: ${JSON.stringify(statement.params)}\n${plan}`);
    } finally {
      await db.query("rollback");
    }
  }
  return explained.join("\n\n");
}

/** `count` items of `owner`, straight into the table (other users' data, not what is measured). */
async function insertDirectly(owner: string, count: number, seed: number): Promise<void> {
  const source = syntheticWorkspace({ anchor: ANCHOR, seed });
  const columns =
    "owner_id, source, external_id, kind, title, body, author, participants, occurred_at, content_hash";
  for (let i = 0; i < count; i += 1000) {
    const values: unknown[] = [];
    const tuples = Array.from({ length: Math.min(1000, count - i) }, (_, j) => {
      const it = source.item(i + j);
      const row: unknown[] = [
        owner,
        it.source,
        it.externalId,
        it.kind,
        it.title ?? null,
        it.body,
        it.author ?? null,
      ];
      row.push(it.participants ?? [], it.occurredAt, `${seed}-${i + j}`);
      values.push(...row);
      return `(${row.map((_, k) => `$${values.length - row.length + k + 1}`).join(",")})`;
    });
    await db.query(`insert into items (${columns}) values ${tuples.join(",")}`, values);
  }
}

function fmt(ms: number): string {
  return ms.toFixed(1).padStart(7);
}
