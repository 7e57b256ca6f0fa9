/**
 * Hostile input on every endpoint: NUL characters and lone surrogates in every string the API takes,
 * dates Postgres cannot store, deep and wide JSON, huge fields and forged cursors. Each is a 4xx in the
 * error model, and leaves the database as it was.
 */
import { env, exports } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { toBase64Url } from "../src/db/base64url";
import { createDb } from "../src/db/client";
import { items, memories } from "../src/db/schema";
import { newUserId, tokenFor } from "./support/auth";
import { call, type ItemPayload, ingest, item, json, warmUpWorker } from "./support/items";
import { registerMembers } from "./support/workspaces";

beforeAll(async () => {
  await warmUpWorker();
  await registerMembers("someone");
});
const db = createDb(parseConfig(env));

const NUL = "a\u0000b";
const LONE_SURROGATE = "a\uD800b";
const BAD_STRINGS = { NUL, "a lone surrogate": LONE_SURROGATE, "a lone low surrogate": "\uDC00x" };

async function rowsOf(user: string): Promise<{ items: number; memories: number }> {
  const [i] = await db.select({ n: sql<number>`count(*)::int` }).from(items).where(eq(items.ownerId, user));
  const [m] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(memories)
    .where(eq(memories.subjectKey, user));
  return { items: Number(i!.n), memories: Number(m!.n) };
}

async function expectClientError(res: Response, status: number, code: string): Promise<void> {
  const body = await json<{ error: { code: string; message: string; requestId: string } }>(res);
  expect({ status: res.status, code: body.error.code }).toEqual({ status, code });
  expect(body.error.message).toBeTruthy();
  expect(body.error.requestId).toBeTruthy();
}

/** Every string-valued path of an item, with a payload that puts `bad` there. */
function itemWithBadString(path: string, bad: string): ItemPayload {
  const base = item({ externalId: "x", url: "https://example.com/a", sharedWith: ["someone"] });
  switch (path) {
    case "participants.0":
      return { ...base, participants: [bad] };
    case "sharedWith.0":
      return { ...base, sharedWith: [bad] };
    case "links.0.externalId":
      return { ...base, links: [{ externalId: bad }] };
    case "links.0.source":
      return { ...base, links: [{ source: bad, externalId: "y" }] };
    case "metadata.key":
      return { ...base, metadata: { [bad]: 1 } };
    case "metadata.value":
      return { ...base, metadata: { note: bad } };
    case "metadata.nested":
      return { ...base, metadata: { a: [{ b: bad }] } };
    case "url":
      return { ...base, url: `https://example.com/${bad}` };
    default:
      return { ...base, [path]: bad };
  }
}

const STRING_PATHS = [
  "source",
  "externalId",
  "title",
  "body",
  "author",
  "url",
  "participants.0",
  "sharedWith.0",
  "links.0.externalId",
  "links.0.source",
  "metadata.key",
  "metadata.value",
  "metadata.nested",
];

describe("POST /items refuses invalid text with a 422 naming the path, and writes nothing", () => {
  for (const [label, bad] of Object.entries(BAD_STRINGS)) {
    it.each(STRING_PATHS)(`${label} in %s`, async (path) => {
      const user = newUserId();
      const res = await call(user, "POST", "/items", { body: { items: [itemWithBadString(path, bad)] } });
      const body = await json<{
        error: { code: string; details: { items: { index: number; path: string }[] } };
      }>(res);
      expect(res.status).toBe(422);
      expect(body.error.code).toBe("validation_failed");
      expect(body.error.details.items[0]!.path.split(".")[0]).toBe(path.split(".")[0]);
      expect(await rowsOf(user)).toEqual({ items: 0, memories: 0 });
    });
  }
});

describe("POST /items bounds what Postgres cannot store", () => {
  const cases: [string, Partial<ItemPayload>][] = [
    ["occurredAt in year 0", { occurredAt: "0000-01-01T00:00:00Z" }],
    ["occurredAt past year 9999 in UTC", { occurredAt: "9999-12-31T23:59:59-14:00" }],
    [
      "metadata nested 10,000 deep",
      { metadata: JSON.parse(`${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`) },
    ],
    [
      "metadata with 50,000 keys",
      { metadata: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i])) },
    ],
    ["metadata nested 33 deep", { metadata: JSON.parse(`${'{"a":'.repeat(33)}1${"}".repeat(33)}`) }],
    ["a title of 100,000 characters", { title: "t".repeat(100_000) }],
  ];
  it.each(cases)("%s is a 422 and writes nothing", async (_label, overrides) => {
    const user = newUserId();
    const res = await call(user, "POST", "/items", {
      body: { items: [item({ externalId: "x", ...overrides })] },
    });
    await expectClientError(res, 422, "validation_failed");
    expect(await rowsOf(user)).toEqual({ items: 0, memories: 0 });
  });

  it("accepts metadata nested 32 deep and the extremes of the storable range", async () => {
    const user = newUserId();
    const outcomes = await ingest(user, [
      item({ externalId: "deep", metadata: JSON.parse(`${'{"a":'.repeat(31)}1${"}".repeat(31)}`) }),
      item({ externalId: "first", occurredAt: "0001-01-01T00:00:00Z" }),
      item({ externalId: "last", occurredAt: "9999-12-31T23:59:59Z" }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["created", "created", "created"]);
  });

  it("indexes a body of 120,000 distinct words by its beginning and keeps the whole text", async () => {
    const user = newUserId();
    const words = Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
    const [stored] = await ingest(user, [item({ externalId: "long", body: words.join(" ") })]);
    const found = await json<{ items: { id: string }[] }>(await call(user, "GET", `/items?q=${words[5]}`));
    expect(found.items.map((i) => i.id)).toEqual([stored!.id]);
    const full = await json<{ body: string }>(await call(user, "GET", `/items/${stored!.id}`));
    expect(full.body.length).toBe(words.join(" ").length);
  });
});

describe("GET /items refuses bad query values with a 400", () => {
  const cases = [
    ["q with NUL", `q=${encodeURIComponent(NUL)}`],
    ["people with NUL", `people=${encodeURIComponent(NUL)}`],
    ["since in year 0", "since=0000-01-01"],
    ["until past year 9999 in UTC", `until=${encodeURIComponent("9999-12-31T23:59:59-14:00")}`],
    ["since that is not a date", "since=yesterday"],
    ["limit of 1e308", "limit=1e308"],
    ["a cursor with NUL", `cursor=${encodeURIComponent(NUL)}`],
  ];
  it.each(cases)("%s", async (_label, query) => {
    await expectClientError(await call(newUserId(), "GET", `/items?${query}`), 400, "bad_request");
  });
});

it("GET /items with a surrogate's bytes percent-encoded in q searches for the text as decoded", async () => {
  // %ED%A0%80 is not UTF-8: it decodes to replacement characters, never to a lone surrogate.
  const res = await call(newUserId(), "GET", "/items?q=a%ED%A0%80b&people=%ED%A0%80");
  expect(res.status).toBe(200);
});

const forge = (value: unknown) => toBase64Url(JSON.stringify(value));
const ID = "00000000-0000-4000-8000-000000000000";

describe("forged cursors are a 400, never a 500", () => {
  const searchCursors = [
    ["rank 1e308", { r: 1e308, t: "2026-01-01T00:00:00.000Z", i: ID }],
    ["rank 1e-300", { r: 1e-300, t: "2026-01-01T00:00:00.000Z", i: ID }],
    ["rank -1", { r: -1, t: "2026-01-01T00:00:00.000Z", i: ID }],
    ["year +275760", { r: 0.1, t: "+275760-09-13T00:00:00.000Z", i: ID }],
    ["year 0", { r: 0.1, t: "0000-01-01T00:00:00.000Z", i: ID }],
  ] as const;
  it.each(searchCursors)("GET /items?q with %s", async (_label, cursor) => {
    const res = await call(newUserId(), "GET", `/items?q=budget&cursor=${forge(cursor)}`);
    await expectClientError(res, 400, "bad_request");
  });

  it("GET /items (by time) with year +275760", async () => {
    const res = await call(
      newUserId(),
      "GET",
      `/items?cursor=${forge({ t: "+275760-09-13T00:00:00.000Z", i: ID })}`,
    );
    await expectClientError(res, 400, "bad_request");
  });

  const listCursors = [
    ["year +275760", ["+275760-09-13T00:00:00.000Z", ID]],
    ["year 0", ["0000-01-01T00:00:00.000Z", ID]],
    ["a number for a time", [1e308, ID]],
    ["not base64", "%%%"],
  ] as const;
  for (const path of ["/memory/runs", "/memory/versions"]) {
    it.each(listCursors)(`GET ${path} with %s`, async (_label, cursor) => {
      const encoded = typeof cursor === "string" ? cursor : forge(cursor);
      await expectClientError(
        await call(newUserId(), "GET", `${path}?cursor=${encoded}`),
        400,
        "bad_request",
      );
    });
  }
});

describe("tokens whose subject Postgres or Unicode cannot hold are refused", () => {
  it.each(Object.entries(BAD_STRINGS))("a sub with %s is a 401", async (_label, sub) => {
    const token = await tokenFor(sub);
    const res = await exports.default.fetch("http://local/items", {
      headers: { authorization: `Bearer ${token}` },
    });
    await expectClientError(res, 401, "unauthorized");
  });
});

describe("sharing fan-out", () => {
  it("refuses a request that shares with more than 1,000 distinct users, writing nothing", async () => {
    const user = newUserId();
    const batch = Array.from({ length: 500 }, (_, i) =>
      item({ externalId: `fan-${i}`, sharedWith: Array.from({ length: 67 }, (_, j) => `u-${i}-${j}`) }),
    );
    const res = await call(user, "POST", "/items", { body: { items: batch } });
    await expectClientError(res, 422, "validation_failed");
    expect(await rowsOf(user)).toEqual({ items: 0, memories: 0 });
  });

  it("records every sharee's trigger in the same write as the items", async () => {
    const user = newUserId();
    const prefix = `${user}-sharee`;
    const batch = Array.from({ length: 500 }, (_, i) =>
      item({ externalId: `fan-${i}`, sharedWith: [`${prefix}-${2 * i}`, `${prefix}-${2 * i + 1}`] }),
    );
    await registerMembers(...batch.flatMap((i) => i.sharedWith ?? []));
    const outcomes = await ingest(user, batch);
    expect(outcomes.every((o) => o.status === "created")).toBe(true);
    const [marked] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(memories)
      .where(sql`${memories.subjectKey} like ${`${prefix}-%`} and ${memories.materialChangedAt} is not null`);
    expect(Number(marked!.n)).toBe(1000);

    // Leave no thousand stale subjects behind for the sweep tests that share this database.
    await db.delete(items).where(eq(items.ownerId, user));
    await db.delete(memories).where(sql`${memories.subjectKey} like ${`${prefix}-%`}`);
  });
});
