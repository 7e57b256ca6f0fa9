/**
 * The local stand-in for Neon's endpoints, spoken to by the real driver from inside workerd:
 * HTTP `/sql` (single queries, batches in one transaction, errors) and the WebSocket relay (Pool).
 * Runs against whichever backend the suite uses (PGlite or the machine's PostgreSQL).
 */
import { env } from "cloudflare:workers";
import { NeonDbError, neon, neonConfig } from "@neondatabase/serverless";
import { sql as drizzleSql, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb, statementDeadline } from "../src/db/client";
import { items } from "../src/db/schema";
import { newUserId } from "./support/auth";
import { withTransaction } from "./support/ws-transaction";

const config = parseConfig(env);
const endpoint = String(env.NEON_LOCAL_ENDPOINT);
const sql = neon(config.databaseUrl, { fullResults: true });

beforeAll(() => {
  neonConfig.fetchEndpoint = `${endpoint}/sql`;
  // drizzle's Neon HTTP driver leaves date and time values as Postgres's text, for every query of the process
  // (it sets the driver's type parsers when a database is created): the worker always runs that way.
  createDb(config);
});

/** A timestamptz as the worker's driver returns it: Postgres's text of that instant. */
const asTimestampText = (value: unknown) => {
  expect(typeof value).toBe("string");
  return new Date(value as string).toISOString();
};

const insertItem = (owner: string, externalId: string) =>
  sql.query(
    `insert into items (owner_id, source, external_id, kind, body, occurred_at, content_hash)
     values ($1, 'test', $2, 'note', 'body', now(), 'h') returning id`,
    [owner, externalId],
  );
const countItems = async (owner: string) =>
  Number((await sql.query("select count(*) as n from items where owner_id = $1", [owner])).rows[0]!.n);

describe("the stand-in's HTTP /sql protocol", () => {
  it("round-trips Postgres types the way the Neon driver parses them", async () => {
    const result = await sql.query(
      `select 42::int4 as int, 9007199254740993::int8 as big, 12.345::numeric(6,3) as num, true as bool,
              '2026-03-01T10:00:00.123Z'::timestamptz as ts, '{"a": [1, null], "b": "é"}'::jsonb as json,
              array['a', 'b,c', '"q"', null]::text[] as arr, 'c0a80101-0000-4000-8000-000000000001'::uuid as id,
              null::text as nothing`,
    );
    const { ts, ...rest } = result.rows[0]!;
    expect(asTimestampText(ts)).toBe("2026-03-01T10:00:00.123Z");
    expect(rest).toEqual({
      int: 42,
      big: "9007199254740993",
      num: "12.345",
      bool: true,
      json: { a: [1, null], b: "é" },
      arr: ["a", "b,c", '"q"', null],
      id: "c0a80101-0000-4000-8000-000000000001",
      nothing: null,
    });
    expect(result.fields.map((f) => f.name)).toEqual([
      "int",
      "big",
      "num",
      "bool",
      "ts",
      "json",
      "arr",
      "id",
      "nothing",
    ]);
    expect(result.fields.find((f) => f.name === "ts")!.dataTypeID).toBe(1184);
  });

  it("sends parameters of every common type", async () => {
    const result = await sql.query(
      "select $1::timestamptz as ts, $2::text[] as arr, $3::jsonb as json, $4::int8 as big, $5::text as nothing, $6::bool as flag",
      [
        new Date("2026-01-02T03:04:05.678Z"),
        ["x", 'y "z"', "a,b"],
        JSON.stringify({ k: "v" }),
        "9007199254740993",
        null,
        false,
      ],
    );
    const { ts, ...rest } = result.rows[0]!;
    expect(asTimestampText(ts)).toBe("2026-01-02T03:04:05.678Z");
    expect(rest).toEqual({
      arr: ["x", 'y "z"', "a,b"],
      json: { k: "v" },
      big: "9007199254740993",
      nothing: null,
      flag: false,
    });
  });

  it("reports a unique violation as a 400 with the code, constraint and detail", async () => {
    const owner = newUserId();
    await insertItem(owner, "dup");
    const error = await insertItem(owner, "dup").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NeonDbError);
    expect(error).toMatchObject({ code: "23505", constraint: "items_owner_source_external_key" });
    expect((error as NeonDbError).detail).toMatch(/already exists/);

    const raw = await fetch(`${endpoint}/sql`, {
      method: "POST",
      headers: { "Neon-Connection-String": config.databaseUrl, "content-type": "application/json" },
      body: JSON.stringify({
        query:
          "insert into items (owner_id, source, external_id, kind, body, occurred_at, content_hash) values ($1, 'test', 'dup', 'note', 'b', now(), 'h')",
        params: [owner],
      }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({
      code: "23505",
      constraint: "items_owner_source_external_key",
      severity: "ERROR",
    });
  });

  it("reports a syntax error with its code and position", async () => {
    const error = await sql.query("selec 1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NeonDbError);
    expect(error).toMatchObject({ code: "42601", position: "1" });
  });

  it("runs a batch as one transaction: a failing statement rolls back the ones before it", async () => {
    const owner = newUserId();
    const error = await sql
      .transaction([insertItem(owner, "first"), insertItem(owner, "second"), sql.query("select 1/0")])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "22012" });
    expect(await countItems(owner)).toBe(0);

    const results = await sql.transaction([insertItem(owner, "first"), insertItem(owner, "second")]);
    expect(results).toHaveLength(2);
    expect(await countItems(owner)).toBe(2);
  });

  it("applies the batch's isolation level and read-only setting", async () => {
    const [level] = await sql.transaction([sql.query("show transaction_isolation")], {
      isolationLevel: "Serializable",
    });
    expect(level!.rows[0]).toEqual({ transaction_isolation: "serializable" });
    const error = await sql
      .transaction([insertItem(newUserId(), "x")], { readOnly: true })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "25006" });
  });
});

describe("the database's deadline", () => {
  it("holds for the statements of the batch it leads, at the worker's query deadline, and nowhere else", async () => {
    const db = createDb(config);
    const setting = drizzleSql`select current_setting('statement_timeout') as timeout`;
    const [, inside] = await db.batch([db.execute(statementDeadline()), db.execute(setting)]);
    const seconds = config.queryTimeoutMs / 1000;
    expect(inside.rows).toEqual([
      { timeout: Number.isInteger(seconds) ? `${seconds}s` : `${config.queryTimeoutMs}ms` },
    ]);
    expect((await db.execute(setting)).rows).toEqual([{ timeout: "0" }]);
  });
});

describe("the stand-in's WebSocket relay", () => {
  it("runs an interactive transaction through a Pool and commits it", async () => {
    const owner = newUserId();
    const ids = await withTransaction(config, async (tx) => {
      const [a] = await tx
        .insert(items)
        .values({
          ownerId: owner,
          source: "t",
          externalId: "a",
          kind: "note",
          body: "x",
          occurredAt: new Date(),
          contentHash: "h",
        })
        .returning({ id: items.id });
      // Reads inside the transaction see its own writes.
      const seen = await tx.select({ id: items.id }).from(items).where(eq(items.ownerId, owner));
      return { inserted: a!.id, seen: seen.map((r) => r.id) };
    });
    expect(ids.seen).toEqual([ids.inserted]);
    const db = createDb(config);
    const rows = await db
      .select({ id: items.id, createdAt: items.createdAt })
      .from(items)
      .where(eq(items.ownerId, owner));
    expect(rows).toEqual([{ id: ids.inserted, createdAt: expect.any(Date) }]);
  });

  it("rolls the transaction back when the work throws", async () => {
    const owner = newUserId();
    const failure = withTransaction(config, async (tx) => {
      await tx.insert(items).values({
        ownerId: owner,
        source: "t",
        externalId: "a",
        kind: "note",
        body: "x",
        occurredAt: new Date(),
        contentHash: "h",
      });
      throw new Error("changed my mind");
    });
    await expect(failure).rejects.toThrow("changed my mind");
    expect(await countItems(owner)).toBe(0);
  });
});
