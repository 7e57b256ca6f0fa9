import { describe, expect, it } from "vitest";
import { itemInputSchema } from "../../src/domain/item-schema";
import {
  identifier,
  identifierKey,
  isBotKey,
  isSharedMailbox,
  itemPeopleSchema,
  itemPersonSchema,
  keepValid,
  MAX_ITEM_PEOPLE,
  normaliseKey,
  normalisePhone,
  parseIdentifierKey,
  personId,
} from "../../src/domain/people/model";

describe("identifiers", () => {
  it("normalises each kind to one spelling", () => {
    expect(identifier("email", " <Ada@ACME.com> ")).toEqual({ kind: "email", value: "ada@acme.com" });
    expect(identifier("email", "mailto:ada@acme.com")?.value).toBe("ada@acme.com");
    expect(identifier("github", "@AdaLovelace")?.value).toBe("adalovelace");
    expect(identifier("github", "dependabot[bot]")?.value).toBe("dependabot[bot]");
    expect(identifier("slack", "t024be7ld/u024be7lh")?.value).toBe("T024BE7LD/U024BE7LH");
    expect(identifier("slack", "U024BE7LH")?.value).toBe("U024BE7LH");
    expect(identifier("speaker", "call-1#  Ada   L. ")?.value).toBe("call-1#ada l.");
    expect(identifier("handle", "chat/Ada")?.value).toBe("chat/ada");
    expect(identifier("user", "user_123")?.value).toBe("user_123");
  });

  it("refuses values that are not of the kind", () => {
    expect(identifier("email", "Ada Lovelace")).toBeNull();
    expect(identifier("email", "ada@localhost")).toBeNull();
    expect(identifier("github", "not a login")).toBeNull();
    expect(identifier("slack", "#general")).toBeNull();
    expect(identifier("speaker", "no-scope")).toBeNull();
    expect(identifier("handle", "chat/")).toBeNull();
    expect(identifier("phone", "call me")).toBeNull();
  });

  it("reads telephone numbers as E.164 when they carry a country code, else as local digits", () => {
    expect(normalisePhone("+44 20 7946 0001")).toBe("+442079460001");
    expect(normalisePhone("0044 (20) 7946-0001")).toBe("+442079460001");
    expect(normalisePhone("tel:+1-418-656-9254;ext=102")).toBe("+14186569254");
    expect(normalisePhone("(905) 555-1234")).toBe("9055551234");
    expect(normalisePhone("123456")).toBeNull();
    expect(normalisePhone("+0 123 456 789")).toBeNull();
  });

  it("round-trips keys and normalises a written key", () => {
    const id = { kind: "email" as const, value: "ada@acme.com" };
    expect(parseIdentifierKey(identifierKey(id))).toEqual(id);
    expect(parseIdentifierKey("handle:chat/a:b")).toEqual({ kind: "handle", value: "chat/a:b" });
    expect(parseIdentifierKey("fax:123")).toBeNull();
    expect(parseIdentifierKey("email:")).toBeNull();
    expect(normaliseKey("EMAIL:Ada@Acme.com")).toBe("email:ada@acme.com");
    expect(normaliseKey("github:not a login")).toBeNull();
  });

  it("derives a stable, opaque person id from a key", () => {
    expect(personId("email:ada@acme.com")).toBe(personId("email:ada@acme.com"));
    expect(personId("email:ada@acme.com")).toMatch(/^p_[0-9a-f]{16}$/);
    expect(personId("email:ada@acme.com")).not.toBe(personId("email:ada@acme.co"));
    const ids = new Set(Array.from({ length: 5000 }, (_, i) => personId(`email:person${i}@acme.com`)));
    expect(ids.size).toBe(5000);
  });

  it("knows shared mailboxes and bots by their identifier", () => {
    for (const box of ["team", "support", "noreply", "no-reply", "notifications", "eng-team", "info"]) {
      expect(isSharedMailbox(`email:${box}@acme.com`)).toBe(true);
    }
    expect(isSharedMailbox("email:ada@acme.com")).toBe(false);
    expect(isSharedMailbox("email:steam@acme.com")).toBe(false);
    expect(isSharedMailbox("github:team")).toBe(false);
    expect(isBotKey("github:dependabot[bot]")).toBe(true);
    expect(isBotKey("github:adalovelace")).toBe(false);
  });
});

describe("the items' structured people field", () => {
  it("takes a person with a role, name, email, handles and aliases", () => {
    const person = {
      role: "author",
      name: "Ada Lovelace",
      email: "ada@acme.com",
      handles: [{ kind: "slack", value: "T1/U1" }],
      aliases: ["Ada"],
    };
    expect(itemPersonSchema.parse(person)).toEqual(person);
  });

  it("refuses hostile or unbounded values with a clear message", () => {
    const bad = (value: unknown) => itemPersonSchema.safeParse(value);
    expect(bad({ role: "author", name: "Ada\u0000" }).error?.issues[0]?.message).toBe(
      "must not contain NUL characters",
    );
    expect(bad({ role: "author", name: "Ada \ud800" }).error?.issues[0]?.message).toBe(
      "must be valid Unicode (no lone surrogates)",
    );
    expect(bad({ role: "author", name: "a".repeat(100_000) }).success).toBe(false);
    expect(bad({ role: "boss" }).error?.issues[0]?.message).toMatch(/must be one of author/);
    expect(bad({ role: "author", handles: [{ kind: "user", value: "u1" }] }).success).toBe(false);
    expect(bad({ role: "author", extra: 1 }).success).toBe(false);
    expect(bad({ role: "author", email: "ada at acme" }).error?.issues[0]?.message).toBe(
      "must be an email address (ada@example.com)",
    );
    const handle = (kind: string, value: string) =>
      bad({ role: "author", handles: [{ kind, value }] }).error?.issues[0];
    expect(handle("github", "not a login")).toMatchObject({
      path: ["handles", 0, "value"],
      message: "must be a GitHub login (octocat)",
    });
    expect(handle("slack", "#general")?.message).toMatch(/^must be a Slack user id/);
    expect(handle("phone", "call me")?.message).toMatch(/^must be a telephone number/);
    expect(handle("github", "octocat")).toBeUndefined();
    expect(handle("speaker", "Ada L.")).toBeUndefined();
    expect(handle("handle", "twitter/ada")).toBeUndefined();
    const many = Array.from({ length: MAX_ITEM_PEOPLE + 1 }, () => ({ role: "participant" }));
    expect(itemPeopleSchema.safeParse(many).success).toBe(false);
    expect(itemPeopleSchema.safeParse(many.slice(1)).success).toBe(true);
  });

  it("keeps what importers emit within the schema: invalid addresses and handles left out", () => {
    expect(
      keepValid({
        role: "attendee",
        name: "Ada",
        email: "ada@localhost",
        handles: [
          { kind: "github", value: "-bad-" },
          { kind: "phone", value: "+44 20 7946 0001" },
        ],
      }),
    ).toEqual({ role: "attendee", name: "Ada", handles: [{ kind: "phone", value: "+44 20 7946 0001" }] });
    expect(keepValid({ role: "attendee", email: "nobody" })).toBeNull();
  });

  it("is accepted on an item and refused there when bad", () => {
    const item = {
      source: "chat",
      externalId: "m1",
      kind: "message",
      body: "hello",
      occurredAt: "2026-01-05T09:00:00Z",
      people: [{ role: "author", name: "Ada Lovelace", handles: [{ kind: "slack", value: "T1/U1" }] }],
    };
    expect(itemInputSchema.parse(item).people).toEqual(item.people);
    const refused = itemInputSchema.safeParse({ ...item, people: [{ role: "author", name: "\u0000" }] });
    expect(refused.error?.issues[0]?.path).toEqual(["people", 0, "name"]);
  });
});
