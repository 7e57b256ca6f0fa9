import { describe, expect, it } from "vitest";
import type { ItemPeopleInput } from "../../src/domain/people/model";
import { MAX_ITEM_STRINGS, parsePersonString, sightingsOf } from "../../src/domain/people/sightings";

const item = (over: Partial<ItemPeopleInput>): ItemPeopleInput => ({
  id: "item-1",
  source: "chat",
  author: null,
  participants: [],
  ...over,
});

describe("sightingsOf: the author and participant strings", () => {
  it("reads Name <address>, bare addresses, the comment form and phone numbers", () => {
    const { sightings, hardLinks } = sightingsOf(
      item({
        source: "mail",
        author: '"Ada Lovelace" <Ada@Acme.com>',
        participants: ["bob@acme.com", "carol@acme.com (Carol Danvers)", "+44 20 7946 0001"],
        occurredAt: "2026-01-05T09:00:00.000Z",
      }),
    );
    expect(sightings.map((s) => [s.key, s.name, s.role])).toEqual([
      ["email:ada@acme.com", "Ada Lovelace", "author"],
      ["email:bob@acme.com", null, "participant"],
      ["email:carol@acme.com", "Carol Danvers", "participant"],
      ["phone:+442079460001", null, "participant"],
    ]);
    expect(sightings.every((s) => s.itemId === "item-1" && s.at === "2026-01-05T09:00:00.000Z")).toBe(true);
    expect(hardLinks).toEqual([]);
  });

  it("keeps a bare name as a handle of its source, never as a name shared across sources", () => {
    expect(parsePersonString("Ada Lovelace", "chat")).toEqual({
      key: "handle:chat/ada lovelace",
      name: "Ada Lovelace",
    });
    expect(parsePersonString("Ada Lovelace", "mail")?.key).toBe("handle:mail/ada lovelace");
    expect(parsePersonString("unknown user", "chat")).toBeNull();
    expect(parsePersonString("   ", "chat")).toBeNull();
  });

  it("does not take an address for a display name", () => {
    const { sightings } = sightingsOf(item({ author: "ada@acme.com <ada@acme.com>" }));
    expect(sightings).toEqual([{ key: "email:ada@acme.com", name: null, role: "author", itemId: "item-1" }]);
  });
});

describe("sightingsOf: the structured people field", () => {
  it("makes one account's handles hard links citing the item", () => {
    const { sightings, hardLinks } = sightingsOf(
      item({
        id: "card-1",
        source: "contacts",
        people: [
          {
            role: "contact",
            name: "Ada Lovelace",
            email: "ada@acme.com",
            handles: [
              { kind: "phone", value: "+44 20 7946 0001" },
              { kind: "github", value: "AdaLovelace" },
            ],
            aliases: ["Ada"],
          },
        ],
      }),
    );
    expect(hardLinks).toEqual([
      { a: "email:ada@acme.com", b: "phone:+442079460001", itemId: "card-1" },
      { a: "email:ada@acme.com", b: "github:adalovelace", itemId: "card-1" },
    ]);
    expect(new Set(sightings.map((s) => `${s.role} ${s.name}`))).toEqual(
      new Set(["contact Ada Lovelace", "alias Ada"]),
    );
  });

  it("scopes a speaker label to its item and a bare handle to its source", () => {
    const { sightings } = sightingsOf(
      item({
        id: "call-7",
        source: "calls",
        people: [
          { role: "participant", name: "Ada L.", handles: [{ kind: "speaker", value: "Ada L." }] },
          { role: "participant", name: "Bob" },
        ],
        participants: ["Ada L.", "Bob"],
      }),
    );
    expect(sightings.map((s) => s.key)).toEqual(["speaker:call-7#ada l.", "handle:calls/bob"]);
  });

  it("does not count a structured person again through the strings", () => {
    const { sightings } = sightingsOf(
      item({
        source: "github",
        author: "octocat",
        participants: ["octocat", "Ada Lovelace <ada@acme.com>"],
        people: [{ role: "author", handles: [{ kind: "github", value: "octocat" }] }],
      }),
    );
    expect(sightings.map((s) => s.key)).toEqual(["github:octocat", "email:ada@acme.com"]);
  });

  it("marks bots by the source's flag and by their login", () => {
    const { sightings } = sightingsOf(
      item({
        people: [
          { role: "author", name: "Deploy Bot", handles: [{ kind: "slack", value: "T1/U9" }], bot: true },
          { role: "author", handles: [{ kind: "github", value: "dependabot[bot]" }] },
          { role: "participant", name: "Ada", handles: [{ kind: "slack", value: "T1/U1" }] },
        ],
      }),
    );
    expect(sightings.map((s) => s.bot ?? false)).toEqual([true, true, false]);
  });
});

describe("sightingsOf: hostile input", () => {
  it("skips NUL, lone surrogates and over-long strings instead of keeping them", () => {
    const { sightings } = sightingsOf(
      item({
        author: "Ada\u0000 <ada@acme.com>",
        participants: [
          "Bob \ud800 <bob@acme.com>",
          `${"x".repeat(100_000)} <carol@acme.com>`,
          "dan@acme.com",
        ],
        people: [{ role: "participant", name: "n".repeat(100_000), email: "erin@acme.com\u0000" }],
      }),
    );
    expect(sightings.map((s) => s.key)).toEqual(["email:dan@acme.com"]);
  });

  it("reads at most MAX_ITEM_STRINGS of 10,000 participants", () => {
    const participants = Array.from({ length: 10_000 }, (_, i) => `p${i}@acme.com`);
    const { sightings } = sightingsOf(item({ participants }));
    expect(sightings).toHaveLength(MAX_ITEM_STRINGS);
  });

  it("links at most 50 handles of one person (a vCard of 1,000 addresses)", () => {
    const handles = Array.from({ length: 1000 }, (_, i) => ({
      kind: "email" as const,
      value: `a${i}@acme.com`,
    }));
    const { hardLinks } = sightingsOf(item({ people: [{ role: "contact", name: "Many", handles }] }));
    expect(hardLinks).toHaveLength(49);
  });
});
