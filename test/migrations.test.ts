/**
 * The suite's database starts empty and gets the drizzle-kit migrations applied by the global setup:
 * every migration is recorded once, and the schema they build is the one the code expects.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import journal from "../drizzle/meta/_journal.json";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";

const db = createDb(parseConfig(env));
const rows = async <T>(query: ReturnType<typeof sql>) => (await db.execute(query)).rows as T[];

describe("migrations applied to an empty database", () => {
  it("record every migration in drizzle's journal exactly once", async () => {
    const applied = await rows<{ n: string }>(sql`select count(*) as n from drizzle.__drizzle_migrations`);
    expect(Number(applied[0]!.n)).toBe(journal.entries.length);
  });

  it("give index builds in this database enough memory for a model's HNSW graph (a default for new sessions)", async () => {
    const [setting] = await rows<{ setconfig: string[] }>(sql`
      select setconfig from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase
      where d.datname = current_database() and s.setrole = 0`);
    expect(setting?.setconfig).toContain("maintenance_work_mem=256MB");
  });

  it("create every table of the data model", async () => {
    const tables = await rows<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining([
        "item_chunks",
        "item_links",
        "items",
        "memories",
        "memory_runs",
        "memory_versions",
        "sweep_cursors",
      ]),
    );
  });

  it("create pgvector 0.8 or later (the SQL uses nothing past Neon's 0.8.0) and a dimensionless embedding column", async () => {
    const [extension] = await rows<{ extversion: string }>(
      sql`select extversion from pg_extension where extname = 'vector'`,
    );
    const [major, minor] = (extension?.extversion ?? "0.0").split(".").map(Number);
    expect(major! * 100 + minor!).toBeGreaterThanOrEqual(8);
    const [vectorColumn] = await rows<{ udt_name: string; atttypmod: number }>(sql`
      select c.udt_name, a.atttypmod from information_schema.columns c
      join pg_attribute a on a.attrelid = 'item_chunks'::regclass and a.attname = c.column_name
      where c.table_name = 'item_chunks' and c.column_name = 'embedding'`);
    // No fixed dimension in the column type (-1): any model's vectors fit.
    expect(vectorColumn).toEqual({ udt_name: "vector", atttypmod: -1 });
  });

  it("create the indexes the hot paths rely on", async () => {
    const indexes = await rows<{ indexname: string; indexdef: string }>(
      sql`select indexname, indexdef from pg_indexes where schemaname = 'public'`,
    );
    const byName = new Map(indexes.map((i) => [i.indexname, i.indexdef]));
    // The owner-and-kind key's separator is the unit separator (drizzle/0028).
    expect(byName.get("items_search_idx")).toContain(
      "USING gin (search, (ARRAY[owner_id, ((owner_id || '\u001f'::text) || kind)]), people_keys)",
    );
    expect(byName.get("items_owner_source_external_key")).toMatch(/UNIQUE/);
    expect(byName.get("memory_versions_cited_idx")).toMatch(/USING gin \(cited_item_ids\)/);
    expect(byName.get("item_links_pending_idx")).toMatch(/WHERE \(to_item IS NULL\)/);
    expect(byName.get("items_owner_occurred_id_idx")).toMatch(
      /\(owner_id, occurred_at, id\) INCLUDE \(content_hash\)/,
    );
    expect(byName.get("items_owner_kind_occurred_id_idx")).toMatch(
      /\(owner_id, kind, occurred_at, id\) INCLUDE \(content_hash\)/,
    );
    expect(byName.get("items_people_trgm_idx")).toMatch(
      /gin \(items_people\(author, participants\) gin_trgm_ops\)/,
    );
  });

  it("keep an item's tsvector in its row, where scoring and rechecking read it (drizzle/0029)", async () => {
    const [column] = await rows<{ attstorage: string }>(
      sql`select attstorage from pg_attribute where attrelid = 'items'::regclass and attname = 'search'`,
    );
    expect(column?.attstorage).toBe("m");
  });
});
