/**
 * What the workspace/team access rule costs search, at 100,000 items of one user, before and after, in one
 * run on PostgreSQL:
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:access-rule
 * Seeds a fresh database directly (the user's ITEMS items, a colleague's 2,000 of which half are shared with
 * the user and 500 with a team of the user's), captures the SQL the real searchItems sends for each query
 * shape (drizzle over node-postgres, statement and parameters as the worker sends them), and times it
 * against the same statement with the rule before issue 11 (`shared_with @> array[viewer]`), alternating
 * the two SAMPLES times per shape. Query latency in the database only (no HTTP, no worker).
 */
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { applyMigrations, createFreshDatabase, dropDatabase } from "../scripts/lib/migrate";
import { searchItems } from "../src/db/item-search";
import * as schema from "../src/db/schema";
import type { SearchQuery } from "../src/domain/items";
import { summarize } from "./lib/stats";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const ITEMS = Number(process.env.ITEMS ?? 100_000);
const SAMPLES = Number(process.env.SAMPLES ?? 200);
const USER = "bench-user";

const databaseUrl = await createFreshDatabase(ADMIN_URL, "um_bench_access_rule");
const client = new pg.Client({ connectionString: databaseUrl });
try {
  await applyMigrations(databaseUrl);
  await client.connect();
  const seedStarted = performance.now();
  await seed();
  const seedMs = performance.now() - seedStarted;

  const shapes: [string, SearchQuery][] = [
    ["text", { q: "budget", limit: 20 }],
    ["text + kind", { q: "budget", kinds: ["email"], limit: 20 }],
    ["text + people", { q: "budget", people: ["carol"], limit: 20 }],
    ["date window", { since: new Date("2026-06-01"), until: new Date("2026-07-01"), limit: 20 }],
    ["newest first", { limit: 20 }],
    ["people only", { people: ["carol"], limit: 20 }],
  ];
  const results: Record<string, unknown> = {};
  for (const [name, query] of shapes) {
    const after = await capture(query);
    const before = {
      text: after.text.replace(
        /&& \(array\[(\$\d+)::text\] \|\| array\(select tm\.team_key from team_members tm where tm\.member_key = (\$\d+)::text\)\)/,
        "@> array[$1::text] and $2::text is not null",
      ),
      values: after.values,
    };
    if (before.text === after.text) throw new Error(`the access rule was not found in: ${after.text}`);
    const times = { before: [] as number[], after: [] as number[] };
    for (let i = 0; i < 10; i++) await client.query(after.text, after.values);
    for (let i = 0; i < SAMPLES; i++) {
      for (const [key, statement] of [
        ["before", before],
        ["after", after],
      ] as const) {
        const t0 = performance.now();
        const res = await client.query(statement.text, statement.values);
        times[key].push(performance.now() - t0);
        if (i === 0) (results as Record<string, Record<string, unknown>>)[name] ??= {};
        if (i === 0) (results[name] as Record<string, unknown>)[`${key}Rows`] = res.rowCount;
      }
    }
    const b = summarize(times.before);
    const a = summarize(times.after);
    Object.assign(results[name] as object, {
      before: { p50: b.median, p99: b.p99 },
      after: { p50: a.median, p99: a.p99 },
      p50Ratio: Math.round((a.median / b.median) * 100) / 100,
    });
  }
  console.log(
    JSON.stringify(
      {
        bench: "access-rule",
        at: new Date().toISOString(),
        items: ITEMS,
        samples: SAMPLES,
        seedMs: Math.round(seedMs),
        results,
      },
      null,
      2,
    ),
  );
} finally {
  await client.end().catch(() => {});
  await dropDatabase(ADMIN_URL, databaseUrl);
}

/** The statement searchItems sends for `query`, as drizzle builds it. */
async function capture(query: SearchQuery): Promise<{ text: string; values: unknown[] }> {
  let captured: { text: string; values: unknown[] } | null = null;
  const db = drizzle(client, {
    schema,
    logger: { logQuery: (text, values) => (captured = { text, values: values as unknown[] }) },
  });
  await searchItems(db as unknown as Parameters<typeof searchItems>[0], USER, query);
  if (!captured) throw new Error("no statement captured");
  return captured;
}

async function seed(): Promise<void> {
  const words = [
    "budget",
    "roadmap",
    "hiring",
    "launch",
    "invoice",
    "migration",
    "review",
    "offsite",
    "contract",
  ];
  const people = ["alice", "bob", "carol", "dan", "erin", "frank", "grace", "heidi"];
  await client.query(
    `
    insert into items (owner_id, source, external_id, kind, title, body, author, participants, occurred_at, content_hash, shared_with)
    select $1, 'gmail', 'u-' || g,
      (array['email','message','task','doc','call','event'])[1 + g % 6],
      'About the ' || ($2::text[])[1 + g % 9] || ' ' || g,
      'Notes on the ' || ($2::text[])[1 + (g * 7) % 9] || ' and the ' || ($2::text[])[1 + (g * 13) % 9] || ' for week ' || g % 52,
      ($3::text[])[1 + g % 8] || ' <' || ($3::text[])[1 + g % 8] || '@example.com>',
      array[($3::text[])[1 + (g * 3) % 8], ($3::text[])[1 + (g * 5) % 8]],
      timestamptz '2025-12-01' + (g % 365) * interval '1 day' + (g % 1440) * interval '1 minute',
      md5(g::text), '{}'
    from generate_series(1, $4::int) g`,
    [USER, words, people, ITEMS],
  );
  await client.query(
    `
    insert into workspace_members (member_key, workspace_id, user_id) values ($1, 'default', $1), ('bench-peer', 'default', 'bench-peer')`,
    [USER],
  );
  for (const team of ["a", "b", "c"]) {
    await client.query(
      `insert into teams (team_key, workspace_id, team_id, name) values ($1, 'default', $2, $2)`,
      [`team:${team}`, team],
    );
    await client.query(`insert into team_members (team_key, member_key) values ($1, $2)`, [
      `team:${team}`,
      USER,
    ]);
  }
  await client.query(
    `
    insert into items (owner_id, source, external_id, kind, title, body, author, participants, occurred_at, content_hash, shared_with)
    select 'bench-peer', 'slack', 'p-' || g, 'message', 'Peer budget ' || g, 'The budget thread ' || g, 'carol', '{}',
      timestamptz '2025-12-01' + (g % 365) * interval '1 day', md5('p' || g),
      case when g % 4 = 0 then array[$1] when g % 4 = 1 then array['team:b'] else '{}' end
    from generate_series(1, 2000) g`,
    [USER],
  );
  await client.query("vacuum analyze items");
}
