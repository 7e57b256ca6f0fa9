/** The evidence statement's lean rows (each sighting shape once, each item once) decode to one sighting each. */
import { describe, expect, it } from "vitest";
import { decodeSightings, type SightingRow } from "../../src/db/pg-people-store";

const shape = (n: number, key: string, name: string | null, role: string, bot = 0): SightingRow => ({
  part: 1,
  n,
  key,
  name,
  role,
  bot,
  item_id: null,
  at: null,
  refs: null,
});
const item = (id: string, at: string, refs: string): SightingRow => ({
  part: 2,
  n: null,
  key: null,
  name: null,
  role: null,
  bot: null,
  item_id: id,
  at,
  refs,
});
const count = (n: number): SightingRow => ({
  ...item("", "", ""),
  part: 3,
  n,
  item_id: null,
  at: null,
  refs: null,
});

const rows = [
  shape(1, "email:ada@acme.example", "Ada Lovelace", "author"),
  shape(2, "slack:T1/U1", null, "participant"),
  shape(3, "slack:T1/B9", "deploybot", "author", 1),
  item("i-new", "2026-11-30T10:00:00.000Z", "1,2"),
  item("i-old", "2026-11-29T09:00:00.000Z", "3,1"),
  count(4),
];

describe("decodeSightings", () => {
  it("gives every item's sightings with the shape's key, name, role and bot, newest items first", () => {
    const { sightings, truncated } = decodeSightings(rows);
    expect(truncated).toBe(false);
    expect(sightings).toEqual([
      {
        key: "email:ada@acme.example",
        name: "Ada Lovelace",
        role: "author",
        itemId: "i-new",
        at: "2026-11-30T10:00:00.000Z",
      },
      {
        key: "slack:T1/U1",
        name: null,
        role: "participant",
        itemId: "i-new",
        at: "2026-11-30T10:00:00.000Z",
      },
      {
        key: "slack:T1/B9",
        name: "deploybot",
        role: "author",
        itemId: "i-old",
        at: "2026-11-29T09:00:00.000Z",
        bot: true,
      },
      {
        key: "email:ada@acme.example",
        name: "Ada Lovelace",
        role: "author",
        itemId: "i-old",
        at: "2026-11-29T09:00:00.000Z",
      },
    ]);
  });

  it("stops at the limit, leaving out the oldest item's last sightings, and says so", () => {
    const { sightings: three, truncated } = decodeSightings(rows, 3);
    expect(truncated).toBe(true);
    expect(three).toHaveLength(3);
    expect(three.map((s) => [s.itemId, s.key])).toEqual([
      ["i-new", "email:ada@acme.example"],
      ["i-new", "slack:T1/U1"],
      ["i-old", "slack:T1/B9"],
    ]);
  });

  it("is complete when the statement met no more than the limit", () => {
    expect(decodeSightings(rows, 4).truncated).toBe(false);
    expect(decodeSightings([...rows.slice(0, -1), count(5)], 4).truncated).toBe(true);
  });
});
