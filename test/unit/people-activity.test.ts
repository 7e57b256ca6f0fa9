import { describe, expect, it } from "vitest";
import { DEFAULT_LINK_CONFIG } from "../../src/domain/people/link-config";
import type { ItemPeopleInput } from "../../src/domain/people/model";
import { resolvePeople } from "../../src/domain/people/resolve";
import { sightingsOf } from "../../src/domain/people/sightings";

const mail = (id: string, author: string, at?: string, participants: string[] = []): ItemPeopleInput => ({
  id,
  source: "mail",
  author,
  participants,
  ...(at ? { occurredAt: at } : {}),
});

const chat = (id: string, name: string, account: string, at: string): ItemPeopleInput => ({
  id,
  source: "chat",
  author: name,
  participants: [],
  people: [{ role: "author", name, handles: [{ kind: "slack", value: account }] }],
  occurredAt: at,
});

/** Resolves the items; `suggestFrom` lowers the suggestion threshold to show the scores of weaker pairs. */
function resolve(items: ItemPeopleInput[], suggestFrom = DEFAULT_LINK_CONFIG.suggestThreshold) {
  const found = items.map(sightingsOf);
  return resolvePeople({
    sightings: found.flatMap((f) => f.sightings),
    hardLinks: found.flatMap((f) => f.hardLinks),
    corrections: [],
    config: { ...DEFAULT_LINK_CONFIG, suggestThreshold: suggestFrom },
  });
}

const activityReasons = (reasons: string[]) => reasons.filter((r) => r.startsWith("active "));

// Ada Lovelace, then a bare a.lovelace@ at the same organisation: an initial spelt (5), the same
// organisation (3), both addresses (-2): 6 before activity.
const adaOld = (first: string, last: string) => [
  mail("m1", "Ada Lovelace <ada@acme.com>", first),
  mail("m2", "Ada Lovelace <ada@acme.com>", last),
];
const adaNew = (first: string, last: string) => [
  mail("m3", "a.lovelace@acme.com", first),
  mail("m4", "a.lovelace@acme.com", last),
];

describe("resolvePeople: activity", () => {
  it("counts an address that took over from another (a changed address) as likelier one person", () => {
    // The old address still sends for three weeks after the new one starts: within the tolerance.
    const { people, suggestions } = resolve([
      ...adaOld("2025-01-10T09:00:00.000Z", "2025-06-20T09:00:00.000Z"),
      ...adaNew("2025-06-01T09:00:00.000Z", "2025-12-01T09:00:00.000Z"),
    ]);
    expect(people).toHaveLength(2);
    expect(suggestions).toEqual([
      {
        a: "email:ada@acme.com",
        b: "email:a.lovelace@acme.com",
        score: 7,
        reasons: [
          "alovelace spells ada lovelace",
          "same organisation acme",
          "both email only",
          "active one after the other: 2025-01-10 to 2025-06-20 / 2025-06-01 to 2025-12-01",
        ],
      },
    ]);
  });

  it("counts two addresses active side by side as likelier two people: no suggestion", () => {
    const sideBySide = [
      ...adaOld("2025-01-10T09:00:00.000Z", "2025-09-01T09:00:00.000Z"),
      ...adaNew("2025-03-01T09:00:00.000Z", "2025-12-01T09:00:00.000Z"),
    ];
    expect(resolve(sideBySide).suggestions).toEqual([]);
    const [pair] = resolve(sideBySide, 0).suggestions;
    expect(pair!.score).toBe(4);
    expect(activityReasons(pair!.reasons)).toEqual([
      "active side by side: 2025-01-10 to 2025-09-01 / 2025-03-01 to 2025-12-01",
    ]);
    // One span inside the other is side by side too, however short.
    const inside = resolve(
      [
        ...adaOld("2025-01-10T09:00:00.000Z", "2025-12-01T09:00:00.000Z"),
        ...adaNew("2025-06-01T09:00:00.000Z", "2025-06-03T09:00:00.000Z"),
      ],
      0,
    ).suggestions;
    expect(inside.map((s) => s.score)).toEqual([4]);
  });

  it("is neutral when times are missing, even from one sighting", () => {
    const untimed = resolve([...adaOld("", ""), ...adaNew("", "")]).suggestions;
    expect(untimed.map((s) => [s.score, activityReasons(s.reasons)])).toEqual([[6, []]]);
    const oneUntimed = resolve([
      ...adaOld("2025-01-10T09:00:00.000Z", "2025-09-01T09:00:00.000Z"),
      ...adaNew("2025-03-01T09:00:00.000Z", ""),
    ]).suggestions;
    expect(oneUntimed.map((s) => [s.score, activityReasons(s.reasons)])).toEqual([[6, []]]);
  });

  it("never carries a pair to the automatic threshold by itself", () => {
    // The same full name spelt by both local parts, one person in common, two addresses: 9 before activity.
    const { people, suggestions } = resolve([
      mail("m1", "Ada Lovelace <ada.lovelace@gmail.com>", "2024-01-10T09:00:00.000Z", [
        "Bob Stone <bob@x.org>",
      ]),
      mail("m2", "Ada Lovelace <adalovelace@yahoo.com>", "2025-01-10T09:00:00.000Z", [
        "Bob Stone <bob@x.org>",
      ]),
    ]);
    expect(people).toHaveLength(3);
    expect(suggestions.map((s) => [s.score, activityReasons(s.reasons)])).toEqual([[9, []]]);
  });

  it("counts a chat account and an address active years apart as a little likelier two people", () => {
    const apart = resolve([
      chat("s1", "Ada Lovelace", "T1/U1", "2016-03-01T09:00:00.000Z"),
      mail("m1", "Ada Lovelace <ada@acme.com>", "2025-03-01T09:00:00.000Z"),
    ]).suggestions;
    expect(apart.map((s) => [s.score, activityReasons(s.reasons)])).toEqual([
      [8, ["active apart: 2016-03-01 / 2025-03-01"]],
    ]);
    // In one period it is neutral: on the labelled fixture it barely tells one person from two.
    const together = resolve([
      chat("s1", "Ada Lovelace", "T1/U1", "2025-02-20T09:00:00.000Z"),
      mail("m1", "Ada Lovelace <ada@acme.com>", "2025-03-01T09:00:00.000Z"),
    ]).suggestions;
    expect(together.map((s) => [s.score, activityReasons(s.reasons)])).toEqual([[9, []]]);
  });
});
