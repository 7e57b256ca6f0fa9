import { describe, expect, it } from "vitest";
import type { Correction, HardLink, ItemPeopleInput, Person, Sighting } from "../../src/domain/people/model";
import { personId } from "../../src/domain/people/model";
import { peopleById, resolvePeople } from "../../src/domain/people/resolve";
import { sightingsOf } from "../../src/domain/people/sightings";

/** Sightings and hard links of items given as (id, source, author, participants, people?). */
function from(items: ItemPeopleInput[]): { sightings: Sighting[]; hardLinks: HardLink[] } {
  const sightings: Sighting[] = [];
  const hardLinks: HardLink[] = [];
  for (const item of items) {
    const out = sightingsOf(item);
    sightings.push(...out.sightings);
    hardLinks.push(...out.hardLinks);
  }
  return { sightings, hardLinks };
}

const mail = (id: string, author: string, participants: string[] = []): ItemPeopleInput => ({
  id,
  source: "mail",
  author,
  participants,
});

const slackMessage = (id: string, name: string, account: string, email?: string): ItemPeopleInput => ({
  id,
  source: "chat",
  author: name,
  participants: [],
  people: [
    { role: "author", name, ...(email ? { email } : {}), handles: [{ kind: "slack", value: account }] },
  ],
});

/** The keys of each person, as sorted lists, for comparing groupings. */
const groups = (people: Person[]) =>
  people.map((p) => p.identifiers.map((i) => i.key).sort()).sort((x, y) => x[0]!.localeCompare(y[0]!));

const personOf = (people: Person[], key: string) =>
  people.find((p) => p.identifiers.some((i) => i.key === key))!;

function resolve(items: ItemPeopleInput[], corrections: Correction[] = [], selfKeys?: string[]) {
  return resolvePeople({ ...from(items), corrections, ...(selfKeys ? { selfKeys } : {}) });
}

// Two addresses of one person at one organisation: the same full name, a local part spelling it.
const renamed = [
  mail("m1", "Ada Lovelace <ada@acme.com>", ["Bob Stone <bob@acme.com>"]),
  mail("m2", "Ada Lovelace <a.lovelace@acme.com>", ["Bob Stone <bob@acme.com>"]),
];
// Two addresses that only share a name, one at a free-mail provider: a suggestion.
const homeAndWork = [
  mail("m3", "Katherine Johnson <kj@acme.com>"),
  mail("m4", "Katherine Johnson <kjohnson@gmail.com>"),
];

describe("resolvePeople: links", () => {
  it("joins what one record ties (a chat profile's address) by a hard link", () => {
    const { people } = resolve([
      slackMessage("s1", "Ada Lovelace", "T1/U1", "ada@acme.com"),
      mail("m1", "Ada Lovelace <ada@acme.com>"),
    ]);
    expect(groups(people)).toEqual([["email:ada@acme.com", "slack:T1/U1"]]);
    const ada = people[0]!;
    expect(ada.identifiers.map((i) => [i.link, i.confidence])).toEqual([
      ["hard", 1],
      ["hard", 1],
    ]);
    expect(ada.items).toEqual(["m1", "s1"]);
    expect(ada.name).toBe("Ada Lovelace");
    expect(ada.id).toBe(personId("email:ada@acme.com"));
  });

  it("joins two identifiers automatically when their score passes the high threshold", () => {
    const { people, suggestions } = resolve(renamed);
    const ada = personOf(people, "email:ada@acme.com");
    expect(ada.identifiers.map((i) => i.key)).toEqual(["email:a.lovelace@acme.com", "email:ada@acme.com"]);
    expect(ada.identifiers.every((i) => i.link === "scored" && i.confidence > 0.99 && i.confidence < 1)).toBe(
      true,
    );
    expect(suggestions).toEqual([]);
  });

  it("leaves a pair between the thresholds as a suggestion with its reasons", () => {
    const { people, suggestions } = resolve(homeAndWork);
    expect(people).toHaveLength(2);
    expect(suggestions).toHaveLength(1);
    expect(suggestions[0]).toMatchObject({
      a: expect.stringMatching(/^email:/),
      b: expect.stringMatching(/^email:/),
    });
    expect(suggestions[0]!.reasons).toContain('same full name "katherine johnson"');
    expect(suggestions[0]!.score).toBeGreaterThanOrEqual(5);
    expect(suggestions[0]!.score).toBeLessThan(10);
  });

  it("links nothing below the low threshold (a shared first name only)", () => {
    const { people, suggestions } = resolve([
      mail("m1", "Ada Lovelace <ada@acme.com>"),
      mail("m2", "Ada King <ak@other.org>"),
    ]);
    expect(people).toHaveLength(2);
    expect(suggestions).toEqual([]);
  });

  it("links a nickname automatically for a chat account whose workspace is at the same organisation", () => {
    const { people } = resolve([
      mail("m1", "Robert Smith <robert.smith@acme.com>"),
      slackMessage("s1", "Bob Smith", "T1/U2"),
      slackMessage("s2", "Ada Lovelace", "T1/U3", "ada@acme.com"),
      slackMessage("s3", "Grace Hopper", "T1/U4", "grace@acme.com"),
    ]);
    expect(personOf(people, "slack:T1/U2").identifiers.map((i) => i.key)).toEqual([
      "email:robert.smith@acme.com",
      "slack:T1/U2",
    ]);
  });

  it("leaves a nickname or an initial between two addresses as a suggestion", () => {
    const { people, suggestions } = resolve([
      mail("m1", "Robert Smith <robert.smith@acme.com>"),
      mail("m2", "Bob Smith <bob.s@acme.com>"),
      mail("m3", "Grace Hopper <grace@acme.com>"),
      mail("m4", "G. Hopper <g.hopper@acme.com>"),
    ]);
    expect(people).toHaveLength(4);
    expect(suggestions.map((s) => s.reasons[0]).sort()).toEqual([
      "initial: grace hopper / g hopper",
      "nickname: robert / bob smith",
    ]);
  });
});

describe("resolvePeople: corrections and their withdrawal", () => {
  it("merge: a member joins a suggestion's two people, confirmed; withdrawn, it is a suggestion again", () => {
    const merge: Correction = {
      id: "c1",
      kind: "merge",
      a: "email:kj@acme.com",
      b: "email:kjohnson@gmail.com",
    };
    const merged = resolve(homeAndWork, [merge]);
    expect(merged.people).toHaveLength(1);
    expect(merged.people[0]!.identifiers.map((i) => i.link)).toEqual(["confirmed", "confirmed"]);
    expect(merged.suggestions).toEqual([]);
    const withdrawn = resolve(homeAndWork, []);
    expect(withdrawn.people).toHaveLength(2);
    expect(withdrawn.suggestions).toHaveLength(1);
  });

  it("distinct: two identifiers the machine joined stay apart, and no suggestion asks again", () => {
    const distinct: Correction = {
      id: "c2",
      kind: "distinct",
      a: "email:ada@acme.com",
      b: "email:a.lovelace@acme.com",
    };
    const apart = resolve(renamed, [distinct]);
    expect(personOf(apart.people, "email:ada@acme.com")).not.toBe(
      personOf(apart.people, "email:a.lovelace@acme.com"),
    );
    expect(apart.suggestions).toEqual([]);
    expect(
      resolve(homeAndWork, [{ ...distinct, a: "email:kj@acme.com", b: "email:kjohnson@gmail.com" }])
        .suggestions,
    ).toEqual([]);
    const withdrawn = resolve(renamed, []);
    expect(personOf(withdrawn.people, "email:ada@acme.com")).toBe(
      personOf(withdrawn.people, "email:a.lovelace@acme.com"),
    );
  });

  it("distinct also holds against a hard link", () => {
    const items = [slackMessage("s1", "Ada Lovelace", "T1/U1", "ada@acme.com")];
    const { people } = resolve(items, [
      { id: "c", kind: "distinct", a: "slack:T1/U1", b: "email:ada@acme.com" },
    ]);
    expect(people).toHaveLength(2);
  });

  it("split: an identifier leaves its person; withdrawn, it is back", () => {
    const items = [
      slackMessage("s1", "Ada Lovelace", "T1/U1", "ada@acme.com"),
      mail("m2", "Ada Lovelace <a.lovelace@acme.com>"),
    ];
    expect(resolve(items).people).toHaveLength(1);
    const split = resolve(items, [{ id: "c3", kind: "split", a: "slack:T1/U1", b: null }]);
    expect(groups(split.people)).toEqual([
      ["email:a.lovelace@acme.com", "email:ada@acme.com"],
      ["slack:T1/U1"],
    ]);
    expect(split.suggestions).toEqual([]);
    expect(resolve(items, []).people).toHaveLength(1);
  });

  it("a merge said after a split counts; one said before it does not", () => {
    const items = homeAndWork;
    const merge: Correction = {
      id: "m",
      kind: "merge",
      a: "email:kj@acme.com",
      b: "email:kjohnson@gmail.com",
    };
    const split: Correction = { id: "s", kind: "split", a: "email:kj@acme.com", b: null };
    expect(resolve(items, [merge, split]).people).toHaveLength(2);
    expect(resolve(items, [split, merge]).people).toHaveLength(1);
  });

  it("on one pair the later of merge and distinct wins", () => {
    const merge: Correction = {
      id: "m",
      kind: "merge",
      a: "email:kj@acme.com",
      b: "email:kjohnson@gmail.com",
    };
    const distinct: Correction = { ...merge, id: "d", kind: "distinct" };
    expect(resolve(homeAndWork, [merge, distinct]).people).toHaveLength(2);
    expect(resolve(homeAndWork, [distinct, merge]).people).toHaveLength(1);
  });

  it("ignores corrections about identifiers the input does not hold (nothing is revealed)", () => {
    const { people } = resolve(homeAndWork, [
      { id: "x", kind: "merge", a: "email:kj@acme.com", b: "email:secret@hidden.org" },
    ]);
    expect(people.flatMap((p) => p.identifiers.map((i) => i.key))).not.toContain("email:secret@hidden.org");
  });

  it("a saved person id keeps answering after a merge and after a split", () => {
    const merge: Correction = {
      id: "m",
      kind: "merge",
      a: "email:kj@acme.com",
      b: "email:kjohnson@gmail.com",
    };
    const before = resolve(homeAndWork);
    const saved = personOf(before.people, "email:kjohnson@gmail.com").id;
    const after = peopleById(resolve(homeAndWork, [merge]).people);
    expect(after.get(saved)?.identifiers.map((i) => i.key)).toContain("email:kjohnson@gmail.com");
    expect(after.get(saved)?.identifiers).toHaveLength(2);
  });
});

describe("resolvePeople: cannot-link", () => {
  it("never joins by score two identifiers that are distinct participants of one item", () => {
    const { people, suggestions } = resolve([
      mail("m1", "Ada Lovelace <ada@acme.com>", ["Ada Lovelace <a.lovelace@acme.com>"]),
      ...renamed,
    ]);
    expect(
      people.filter((p) =>
        p.identifiers.some((i) => i.key.includes("lovelace") || i.key === "email:ada@acme.com"),
      ),
    ).toHaveLength(2);
    expect(suggestions).toEqual([]);
  });

  it("keeps a distinct pair apart even through a third identifier", () => {
    // ada@ and a.lovelace@ are distinct; the chat account matches both by name.
    const { people } = resolve(
      [...renamed, slackMessage("s1", "Ada Lovelace", "T1/U1")],
      [{ id: "d", kind: "distinct", a: "email:ada@acme.com", b: "email:a.lovelace@acme.com" }],
    );
    expect(personOf(people, "email:ada@acme.com")).not.toBe(personOf(people, "email:a.lovelace@acme.com"));
  });
});

describe("resolvePeople: traps", () => {
  it("two people with one full name at two organisations stay two", () => {
    const { people } = resolve([
      mail("m1", "Ada Lovelace <ada@acme.com>"),
      mail("m2", "Ada Lovelace <ada.lovelace@globex.com>"),
    ]);
    expect(people).toHaveLength(2);
  });

  it("a chat account joined with one of two namesakes no longer matches the other", () => {
    const { people } = resolve([
      mail("m1", "Ada Lovelace <ada@acme.com>"),
      slackMessage("s1", "Ada Lovelace", "T1/U1", "ada.l@acme.com"),
      slackMessage("s2", "Grace Hopper", "T1/U2", "grace@acme.com"),
      mail("m2", "Ada Lovelace <ada.lovelace@globex.com>"),
    ]);
    expect(personOf(people, "email:ada.lovelace@globex.com").identifiers).toHaveLength(1);
    expect(personOf(people, "email:ada@acme.com").identifiers.map((i) => i.key)).toContain("slack:T1/U1");
  });

  it("a shared mailbox is not a person, whatever name it sends under", () => {
    const { people, suggestions } = resolve([
      mail("m1", "Ada Lovelace <ada@acme.com>"),
      mail("m2", "Ada Lovelace <team@acme.com>"),
      mail("m3", "Acme Support <support@acme.com>"),
    ]);
    expect(people).toHaveLength(3);
    expect(personOf(people, "email:team@acme.com").kind).toBe("mailbox");
    expect(personOf(people, "email:ada@acme.com").kind).toBe("person");
    expect(suggestions).toEqual([]);
  });

  it("a bot named like a person is a bot, linked to no one", () => {
    const { people } = resolve([
      mail("m1", "Ada Lovelace <ada@acme.com>"),
      {
        id: "s1",
        source: "chat",
        author: "Ada Lovelace",
        participants: [],
        people: [
          { role: "author", name: "Ada Lovelace", handles: [{ kind: "slack", value: "T1/U9" }], bot: true },
        ],
      },
    ]);
    expect(people).toHaveLength(2);
    expect(personOf(people, "slack:T1/U9").kind).toBe("bot");
  });

  it("father and son (Sr. and III) stay two", () => {
    const { people } = resolve([
      mail("m1", "John Doe Sr. <john.doe@ibm.com>"),
      mail("m2", "John Doe III <john.doe@ibm.co.uk>"),
    ]);
    expect(people).toHaveLength(2);
  });

  it("a speaker label is a suggestion at most, never an automatic link", () => {
    const { people, suggestions } = resolve([
      mail("m1", "Ada Lovelace <ada@acme.com>"),
      {
        id: "call-1",
        source: "calls",
        author: null,
        participants: ["Ada L."],
        people: [{ role: "participant", name: "Ada L.", handles: [{ kind: "speaker", value: "Ada L." }] }],
      },
    ]);
    expect(people).toHaveLength(2);
    expect(suggestions.map((s) => [s.a, s.b].sort())).toEqual([
      ["email:ada@acme.com", "speaker:call-1#ada l."],
    ]);
  });
});

describe("resolvePeople: the subject and the view", () => {
  it("marks the subject's own keys as one person, her user id joining through her address", () => {
    const { people } = resolve(
      [mail("m1", "Ada Lovelace <ada@acme.com>", ["bob@acme.com"])],
      [],
      ["user:u_ada", "email:ada@acme.com"],
    );
    const ada = personOf(people, "email:ada@acme.com");
    expect(ada.isSelf).toBe(true);
    expect(ada.identifiers.map((i) => i.key)).toEqual(["email:ada@acme.com", "user:u_ada"]);
    expect(personOf(people, "email:bob@acme.com").isSelf).toBe(false);
  });

  it("joins a member's user id by her record, but not a user id linked to nothing seen", () => {
    const { sightings, hardLinks } = from([mail("m1", "Ada Lovelace <ada@acme.com>")]);
    const { people } = resolvePeople({
      sightings,
      hardLinks: [
        ...hardLinks,
        { a: "user:u_ada", b: "email:ada@acme.com", itemId: "member:u_ada" },
        { a: "user:u_eve", b: "email:eve@hidden.org", itemId: "member:u_eve" },
      ],
      corrections: [],
    });
    expect(groups(people)).toEqual([["email:ada@acme.com", "user:u_ada"]]);
  });

  it("answers people most involved first, with the latest time they were seen", () => {
    const { people } = resolve([
      {
        ...mail("m1", "Ada Lovelace <ada@acme.com>", ["bob@acme.com"]),
        occurredAt: "2026-01-01T00:00:00.000Z",
      },
      { ...mail("m2", "Ada Lovelace <ada@acme.com>"), occurredAt: "2026-02-01T00:00:00.000Z" },
    ]);
    expect(people.map((p) => [p.name, p.items.length, p.lastSeen])).toEqual([
      ["Ada Lovelace", 2, "2026-02-01T00:00:00.000Z"],
      ["bob@acme.com", 1, "2026-01-01T00:00:00.000Z"],
    ]);
  });

  it("keeps hostile or endless names given straight to it out of people's names", () => {
    const sightings: Sighting[] = [
      { key: "email:ada@acme.com", name: "a".repeat(100_000), role: "author", itemId: "i0" },
      { key: "email:ada@acme.com", name: "Ada\u0000", role: "author", itemId: "i1" },
      { key: "email:ada@acme.com", name: "Ada \udc00", role: "author", itemId: "i2" },
      ...Array.from({ length: 1000 }, (_, i) => ({
        key: "email:ada@acme.com",
        name: `Name ${i}`,
        role: "author",
        itemId: `n${i}`,
      })),
    ];
    const [ada] = resolvePeople({ sightings, hardLinks: [], corrections: [] }).people;
    expect(ada!.identifiers[0]!.names).toHaveLength(50);
    expect(ada!.identifiers[0]!.names.every((n) => n.startsWith("Name "))).toBe(true);
    expect(ada!.items).toHaveLength(1003);
  });

  it("resolves an item of 10,000 participants within its bounds", () => {
    const participants = Array.from({ length: 10_000 }, (_, i) => `Person ${i} <p${i}@acme.com>`);
    const { people } = resolve([mail("big", "Ada Lovelace <ada@acme.com>", participants)]);
    expect(people.length).toBeLessThanOrEqual(1001);
    expect(people.length).toBeGreaterThan(900);
  });
});
