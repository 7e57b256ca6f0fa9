/**
 * The deploy guide's migration commands against a real PostgreSQL (TEST_DATABASE_URL's server), each on a fresh
 * database that is dropped afterwards: `npm run db:migrate` and `npx drizzle-kit migrate` both read DATABASE_URL,
 * apply every migration of drizzle/ once, and a second run changes nothing; a migration that rebuilds what a
 * database already holds (a model's vector index) does so on a database that holds it.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createFreshDatabase, dropDatabase, MIGRATIONS_FOLDER } from "../../scripts/lib/migrate";
import { vectorIndexName } from "../../src/db/item-chunk-index";

const run = promisify(execFile);
const adminUrl = process.env.TEST_DATABASE_URL!;
const journal = JSON.parse(readFileSync(`${MIGRATIONS_FOLDER}/meta/_journal.json`, "utf8")) as {
  entries: { tag: string }[];
};
const created: string[] = [];

afterEach(async () => {
  for (const url of created.splice(0)) await dropDatabase(adminUrl, url);
});

async function freshDatabase(): Promise<string> {
  const url = await createFreshDatabase(adminUrl, "um_migrate");
  created.push(url);
  return url;
}

async function query<T>(databaseUrl: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

const appliedCount = async (url: string) =>
  Number((await query<{ n: string }>(url, "select count(*) as n from drizzle.__drizzle_migrations"))[0]!.n);

const withDatabase = (databaseUrl: string) => ({ env: { ...process.env, DATABASE_URL: databaseUrl } });

describe("migrating a new database as the deploy guide says", () => {
  it("npm run db:migrate applies every migration once, builds the schema and is a no-op the second time", async () => {
    const url = await freshDatabase();
    const first = await run("npm", ["run", "-s", "db:migrate"], withDatabase(url));
    expect(first.stdout).toContain(`${journal.entries.length} migrations applied`);
    expect(await appliedCount(url)).toBe(journal.entries.length);
    const tables = await query<{ table_name: string }>(
      url,
      "select table_name from information_schema.tables where table_schema = 'public'",
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(["items", "memories", "item_chunks"]),
    );

    await run("npm", ["run", "-s", "db:migrate"], withDatabase(url));
    expect(await appliedCount(url)).toBe(journal.entries.length);
  });

  it("npx drizzle-kit migrate reads DATABASE_URL through drizzle.config.ts", async () => {
    const url = await freshDatabase();
    await run("npx", ["drizzle-kit", "migrate"], withDatabase(url));
    expect(await appliedCount(url)).toBe(journal.entries.length);
  });

  it("npm run db:migrate without DATABASE_URL exits 2 and says what is missing", async () => {
    const { DATABASE_URL: _unset, ...env } = process.env;
    const failure = await run("npm", ["run", "-s", "db:migrate"], { env }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain("DATABASE_URL is not set");
  });
});

describe("upgrading a database that holds vectors", () => {
  it("rebuilds a model's HNSW index over halfvec under the name the code looks for, and drops the old one (drizzle/0030)", async () => {
    const url = await freshDatabase();
    await run("npm", ["run", "-s", "db:migrate"], withDatabase(url));
    // A model's vectors and its index as they were built before: over vector(3), named without the type.
    const model = "test:a model's";
    const oldName = `item_chunks_hnsw_3_${createHash("sha256").update(`${model}\u00003`).digest("hex").slice(0, 12)}`;
    const quoted = model.replaceAll("'", "''");
    await query(
      url,
      `with item as (
        insert into items (owner_id, source, external_id, kind, body, occurred_at, content_hash)
        values ('upgrader', 'notes', 'n-1', 'note', 'a note', now(), 'h1') returning id)
      insert into item_chunks (item_id, model, dimensions, chunk_index, content_hash, start_offset, end_offset, snippet, embedding)
      select id, '${quoted}', 3, 0, 'h1', 0, 6, 'a note', '[1,0,0]'::vector from item`,
    );
    await query(
      url,
      `create index "${oldName}" on item_chunks using hnsw ((embedding::vector(3)) vector_cosine_ops)
        where model = '${quoted}' and dimensions = 3`,
    );
    // The last migration applied again, as it runs on a database migrated before it.
    await query(
      url,
      "delete from drizzle.__drizzle_migrations where created_at = (select max(created_at) from drizzle.__drizzle_migrations)",
    );
    await run("npm", ["run", "-s", "db:migrate"], withDatabase(url));

    const indexes = await query<{ indexname: string; indexdef: string }>(
      url,
      "select indexname, indexdef from pg_indexes where tablename = 'item_chunks' and indexname like 'item_chunks_hnsw_%'",
    );
    expect(indexes.map((i) => i.indexname)).toEqual([await vectorIndexName({ model, dimensions: 3 })]);
    expect(indexes[0]!.indexdef).toMatch(/\(\(embedding\)::halfvec\(3\)\) halfvec_cosine_ops\) WHERE/);
    expect(await appliedCount(url)).toBe(journal.entries.length);
  });
});
