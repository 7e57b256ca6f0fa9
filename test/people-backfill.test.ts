/**
 * Items stored before people evidence existed get it from the backfill: an item inserted without people
 * (marked pending, as the migration marks every item it found) has its author and participants derived
 * into its sightings, shows in the owner's people on the next read (the write invalidates a kept view),
 * and an item that already has sightings keeps them (its structured people are not stored elsewhere) and
 * only loses the mark.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { backfillPeople } from "../src/app/people-backfill";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { createPgPeopleStore } from "../src/db/pg-people-store";
import { call, ingest, item, json, warmUpWorker } from "./support/items";

beforeAll(warmUpWorker);

const db = createDb(parseConfig(env));
const rows = async <T>(query: ReturnType<typeof sql>) => (await db.execute(query)).rows as T[];

interface PersonSummary {
  name: string;
  identifiers: { kind: string; value: string }[];
}

async function peopleOf(user: string): Promise<PersonSummary[]> {
  const res = await call(user, "GET", "/people?limit=200");
  expect(res.status).toBe(200);
  return (await json<{ people: PersonSummary[] }>(res)).people;
}
const values = (people: PersonSummary[]) => people.flatMap((p) => p.identifiers.map((i) => i.value));

/** Runs the backfill until nothing is pending (other files' items are never pending); how many it derived. */
async function backfillAll() {
  const store = createPgPeopleStore(db);
  let derived = 0;
  for (;;) {
    const report = await backfillPeople({ people: store }, { batch: 2, batches: 3 });
    derived += report.derived;
    if (!report.more) return derived;
  }
}

describe("people backfill", () => {
  it("derives the people of an item stored without them, keeps an item's own, and the next read shows them", async () => {
    const user = `backfill-${crypto.randomUUID().slice(0, 8)}`;
    const [written] = await ingest(user, [
      item({
        source: "slack",
        externalId: "with-people",
        kind: "message",
        author: undefined,
        participants: [],
        people: [
          {
            role: "author",
            name: "Ada Lovelace",
            email: "ada@acme.test",
            handles: [{ kind: "slack", value: "T1/U9" }],
          },
        ],
      }),
    ]);
    const [stored] = await rows<{ owner_id: string }>(
      sql`select owner_id from items where id = ${written!.id}`,
    );
    const owner = stored!.owner_id;
    // As before people evidence existed: an item without people rows, marked as the migration marks it.
    const [old] = await rows<{ id: string }>(sql`
      insert into items (owner_id, source, external_id, kind, title, body, author, participants, occurred_at,
                         content_hash, people_pending)
      values (${owner}, 'gmail', 'before-people', 'email', 'Old thread', 'From before.',
              'Grace Hopper <grace@navy.test>', array['Alan Turing <alan@bletchley.test>'], now(), 'h-old', true)
      returning id`);
    await db.execute(sql`update items set people_pending = true where id = ${written!.id}`);
    const ownRows = async (id: string) =>
      rows<{ identifier: string; role: string; name: string | null }>(
        sql`select p.k as identifier, p.r as role, p.n as name
          from items, jsonb_to_recordset(items.sightings) as p(k text, r text, n text)
          where items.id = ${id} order by p.k, p.r`,
      );
    const before = await ownRows(written!.id);
    expect(before.map((r) => r.identifier)).toContain("slack:T1/U9");
    expect(await ownRows(old!.id)).toEqual([]);
    const seenBefore = values(await peopleOf(user));
    expect(seenBefore).toContain("ada@acme.test");
    expect(seenBefore).not.toContain("grace@navy.test");

    // A scheduled run of another file may take some of the batch first: what counts is what is stored.
    await backfillAll();

    expect(await ownRows(old!.id)).toEqual([
      { identifier: "email:alan@bletchley.test", role: "participant", name: "Alan Turing" },
      { identifier: "email:grace@navy.test", role: "author", name: "Grace Hopper" },
    ]);
    expect(await ownRows(written!.id)).toEqual(before);
    const marks = await rows<{ pending: boolean }>(
      sql`select people_pending as pending from items where id in (${old!.id}, ${written!.id})`,
    );
    expect(marks).toEqual([{ pending: false }, { pending: false }]);
    const seenAfter = values(await peopleOf(user));
    expect(seenAfter).toEqual(
      expect.arrayContaining(["ada@acme.test", "grace@navy.test", "alan@bletchley.test"]),
    );
    // Nothing is left: a second run derives nothing.
    expect(await backfillAll()).toBe(0);
  });
});
