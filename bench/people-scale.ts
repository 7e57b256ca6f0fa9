/**
 * People at 100,000 items of one user, through `wrangler dev` on PostgreSQL:
 *   npm run bench:people-scale        (BENCH_DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/postgres)
 * 1. Seeds ITEMS synthetic items (bench/lib/synthetic-workspace.ts) straight into the tables: mail and
 *    calendar items name people as "Name <address>"; chat messages carry the structured `people` field with
 *    Slack ids; pull requests GitHub logins; and one contact card per chat account of every second person
 *    ties that account to the person's address (a hard link, as a Slack export's profile email does). Each
 *    item's people columns are what the service derives (itemPeopleColumns). About
 *    5,000 identifiers; then VACUUM ANALYZE, as autovacuum would.
 * 2. Times at 1 connection, SAMPLES requests per shape, the shapes interleaved (request i is shape i mod n):
 *    a search that matches nothing (the floor: what the stack costs around any search), GET /people,
 *    GET /people?q=<name>, GET /people/:id and GET /items?person=<id>; p50 / p99 and p99 over the floor's.
 * 3. The first GET /people after a write (a cold view: the resolution runs), timed COLD times.
 * BENCH_KEEP_DATABASE=1 keeps the database; BENCH_REUSE_DATABASE=<its name> times again without seeding;
 * BENCH_INSPECTOR=0 runs the worker without wrangler's inspector, as deployed.
 */
import pg from "pg";
import { signDevToken } from "../scripts/lib/token";
import { itemPeopleColumns } from "../src/db/item-people-writes";
import type { ItemInput } from "../src/domain/item-schema";
import { BENCH_SECRET, startBenchStack } from "./lib/bench-stack";
import { summarize } from "./lib/stats";
import { syntheticWorkspace } from "./lib/synthetic-workspace";

const ITEMS = Number(process.env.ITEMS ?? 100_000);
const SAMPLES = Number(process.env.SAMPLES ?? 150);
const COLD = Number(process.env.COLD ?? 5);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const USER = "bench-user";
const ANCHOR = Date.parse("2026-11-30T00:00:00Z");
const TEAM = "T0NORTHWND";

// BENCH_INSPECTOR=0: the worker as deployed, without wrangler's inspector (which copies every subrequest's body).
const stack = await startBenchStack(
  "people-scale",
  {},
  ADMIN_URL,
  undefined,
  process.env.BENCH_INSPECTOR === "0" ? false : undefined,
);
const db = new pg.Client({ connectionString: stack.databaseUrl });
await db.connect();
const token = signDevToken(BENCH_SECRET, USER);
const ws = syntheticWorkspace({ anchor: ANCHOR });
const rankOf = new Map<string, number>();
for (let r = 0; r < ws.peopleCount; r++) rankOf.set(ws.person(r).display, r);

try {
  const seeded = process.env.BENCH_REUSE_DATABASE ? null : await seed();
  const counts = (
    await db.query(
      `select (select count(*)::int from items where owner_id = $1) as items,
              (select sum(jsonb_array_length(sightings))::int from items where owner_id = $1) as sightings,
              (select count(distinct k)::int from items, unnest(people_keys) k where owner_id = $1) as identifiers,
              (select sum(jsonb_array_length(person_links))::int from items where owner_id = $1) as hard_links`,
      [USER],
    )
  ).rows[0];
  console.error(`[bench] ${JSON.stringify(counts)}`);

  // Warm-up: the first read resolves the view (cold), the next ones find it.
  const tFirst = performance.now();
  const first = await get("/people?limit=50");
  const firstMs = Math.round(performance.now() - tFirst);
  const list = (await first.json()) as {
    people: { id: string; name: string; items: number }[];
    complete: boolean;
  };
  console.error(`[bench] GET /people: complete ${list.complete}`);
  if (first.status !== 200 || list.people.length === 0) throw new Error(`GET /people: ${first.status}`);
  const person = list.people[Math.min(20, list.people.length - 1)]!;
  const name = encodeURIComponent(person.name.split(" ")[1] ?? person.name);
  const shapes: { name: string; path: string }[] = [
    { name: "no match (floor)", path: "/items?q=qwertzuiop&limit=20" },
    { name: "GET /people", path: "/people" },
    { name: "GET /people?q=", path: `/people?q=${name}` },
    { name: "GET /people/:id", path: `/people/${person.id}` },
    { name: "GET /items?person=", path: `/items?person=${person.id}&limit=20` },
  ];
  for (const s of shapes) {
    const res = await get(s.path);
    if (res.status !== 200) throw new Error(`${s.path}: ${res.status} ${await res.text()}`);
  }
  const latencies = new Map<string, number[]>(shapes.map((s) => [s.name, []]));
  for (let i = 0; i < SAMPLES * shapes.length; i++) {
    const s = shapes[i % shapes.length]!;
    const t0 = performance.now();
    const res = await get(s.path);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${s.path}: ${res.status}`);
    latencies.get(s.name)!.push(performance.now() - t0);
  }
  const timed = Object.fromEntries(shapes.map((s) => [s.name, summarize(latencies.get(s.name)!)]));
  const floor = timed["no match (floor)"]!;

  // A write makes the next read resolve again: the cost of a cold view.
  const cold: number[] = [];
  for (let i = 0; i < COLD; i++) {
    await db.query(
      `update items set updated_at = now() where id = (
      select id from items where owner_id = $1 order by occurred_at desc limit 1)`,
      [USER],
    );
    const t0 = performance.now();
    await (await get("/people")).arrayBuffer();
    cold.push(performance.now() - t0);
  }

  console.log(
    JSON.stringify(
      {
        bench: "people-scale",
        counts,
        seeded,
        firstReadMs: firstMs,
        person,
        samples: SAMPLES,
        timed,
        cold: summarize(cold),
      },
      null,
      2,
    ),
  );
  console.log("\nshape                  p50 / p99 (ms)      p99 / floor p99");
  for (const s of shapes) {
    const t = timed[s.name]!;
    console.log(
      `${s.name.padEnd(22)} ${t.median.toFixed(1).padStart(7)} / ${t.p99.toFixed(1).padStart(7)}   ${(t.p99 / floor.p99).toFixed(2)}`,
    );
  }
  const c = summarize(cold);
  console.log(
    `cold GET /people (after a write) median ${c.median.toFixed(0)} ms, max ${c.max.toFixed(0)} ms`,
  );
} finally {
  await db.end();
  await stack.close();
}

function get(path: string): Promise<Response> {
  return fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

/** The login a person uses on GitHub: their initial and surname (alovelace). */
function loginOf(name: string): string {
  const [first, last] = name.toLowerCase().split(" ");
  return `${first![0]}${last}`;
}

function slackOf(rank: number): string {
  return `${TEAM}/U${(46_656 + rank).toString(36).toUpperCase()}`;
}

/** The synthetic item as its importer would give it: chat by Slack id, pull requests by login. */
function asImported(i: number): ItemInput {
  const api = ws.item(i);
  const item = { ...api, occurredAt: new Date(api.occurredAt) } as ItemInput;
  const named = [item.author!, ...(item.participants ?? [])].map((display) => ({
    rank: rankOf.get(display)!,
    name: display.slice(0, display.indexOf(" <")),
  }));
  if (item.kind === "message") {
    const { author: _a, participants: _p, ...rest } = item;
    return {
      ...rest,
      people: named.map((p, k) => ({
        role: k === 0 ? "author" : "mentioned",
        name: p.name,
        handles: [{ kind: "slack", value: slackOf(p.rank) }],
      })),
    } as ItemInput;
  }
  if (item.kind === "pull_request") {
    const { author: _a, participants: _p, ...rest } = item;
    return {
      ...rest,
      people: named.map((p, k) => ({
        role: k === 0 ? "author" : "participant",
        handles: [{ kind: "github", value: loginOf(p.name) }],
      })),
    } as ItemInput;
  }
  return item;
}

/** Items, their people rows and the contact cards, straight into the tables. */
async function seed() {
  const t0 = performance.now();
  const inputs: ItemInput[] = [];
  for (let i = 0; i < ITEMS; i++) inputs.push(asImported(i));
  // A contact card for every second person's chat account: its profile email (a hard link).
  for (let r = 0; r < ws.peopleCount; r += 2) {
    const p = ws.person(r);
    inputs.push({
      source: "slack-users",
      externalId: slackOf(r),
      kind: "contact",
      body: p.name,
      occurredAt: new Date(ANCHOR - 900 * 24 * 3600_000),
      people: [
        { role: "contact", name: p.name, email: p.email, handles: [{ kind: "slack", value: slackOf(r) }] },
      ],
    } as ItemInput);
  }
  const columns =
    "id, owner_id, source, external_id, kind, title, body, author, participants, occurred_at, content_hash, sightings, person_links, people_keys";
  for (let i = 0; i < inputs.length; i += 1000) {
    const values: unknown[] = [];
    const tuples = inputs.slice(i, i + 1000).map((input, j) => {
      const people = itemPeopleColumns(input);
      const row = [
        crypto.randomUUID(),
        USER,
        input.source,
        input.externalId,
        input.kind,
        input.title ?? null,
        input.body,
        input.author ?? null,
        input.participants ?? [],
        input.occurredAt,
        `people-scale-${i + j}`,
        JSON.stringify(people.sightings),
        JSON.stringify(people.personLinks),
        people.peopleKeys,
      ];
      values.push(...row);
      return `(${row.map((_, k) => `$${values.length - row.length + k + 1}`).join(",")})`;
    });
    await db.query(`insert into items (${columns}) values ${tuples.join(",")}`, values);
  }
  const insertMs = Math.round(performance.now() - t0);
  await db.query("vacuum analyze items");
  return { items: inputs.length, insertMs, totalMs: Math.round(performance.now() - t0) };
}
