/**
 * People through the worker: the caller's people from the items they may see (structured people, hard
 * links, "Name <address>" strings), one person, the person filter of search, corrections taking effect on
 * the very next read, and hostile requests refused with nothing written.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { READ_WRITE, tokenFor } from "./support/auth";
import type { ItemPayload } from "./support/items";
import { item, json, warmUpWorker } from "./support/items";
import { registerMembersIn } from "./support/workspaces";

beforeAll(warmUpWorker);

const ADMIN = [...READ_WRITE, "admin"] as const;

async function send(
  ws: string,
  user: string,
  method: string,
  path: string,
  body?: unknown,
  scopes: readonly string[] = READ_WRITE,
  claims: Record<string, unknown> = {},
) {
  const token = await tokenFor(user, scopes, { org_id: ws, ...claims });
  return exports.default.fetch(`http://local${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function ingestIn(ws: string, user: string, items: ItemPayload[]) {
  const res = await send(ws, user, "POST", "/items", { items });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await json<{ items: { id: string; externalId: string }[] }>(res)).items;
}

interface PersonSummary {
  id: string;
  name: string;
  self: boolean;
  identifiers: { kind: string; value: string }[];
  items: number;
  lastSeen: string | null;
}
interface PersonDetail extends PersonSummary {
  requestedId: string;
  identifiers: {
    key: string;
    kind: string;
    value: string;
    names: string[];
    link: string;
    confidence: number;
    items: string[];
  }[];
  recentItems: string[];
}

const peopleOf = async (ws: string, user: string, query = "") => {
  const res = await send(ws, user, "GET", `/people${query}`);
  expect(res.status).toBe(200);
  return (await json<{ people: PersonSummary[]; nextCursor: string | null }>(res)).people;
};
const personHolding = async (ws: string, user: string, kind: string, value: string) =>
  (await peopleOf(ws, user)).find((p) => p.identifiers.some((i) => i.kind === kind && i.value === value));
const keysOf = (p: PersonSummary | undefined) =>
  (p?.identifiers ?? []).map((i) => `${i.kind}:${i.value}`).sort();
const allValues = (people: PersonSummary[]) => people.flatMap((p) => p.identifiers.map((i) => i.value));
const allNames = (people: PersonSummary[]) => people.map((p) => p.name);
const searchIds = async (ws: string, user: string, query: string) => {
  const res = await send(ws, user, "GET", `/items?${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await json<{ items: { id: string }[] }>(res)).items.map((i) => i.id).sort();
};
const newWorkspace = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

/** Ada in mail ("Name <address>"), in Slack (one account: a profile with its email) and on GitHub. */
const adaItems = (): ItemPayload[] => [
  item({
    externalId: "mail-1",
    author: "Ada Lovelace <ada@acme.com>",
    participants: ["Ben Reed <ben@acme.com>"],
  }),
  item({
    source: "slack",
    externalId: "slack-1",
    kind: "message",
    author: "Ada Lovelace",
    participants: [],
    people: [
      {
        role: "author",
        name: "Ada Lovelace",
        email: "ada@acme.com",
        handles: [{ kind: "slack", value: "T1/U024" }],
      },
    ],
  }),
  item({
    source: "slack",
    externalId: "slack-2",
    kind: "message",
    author: undefined,
    participants: [],
    people: [{ role: "author", handles: [{ kind: "slack", value: "T1/U024" }] }],
  }),
  item({
    source: "github",
    externalId: "pr-1",
    kind: "pull_request",
    author: undefined,
    participants: [],
    people: [{ role: "author", handles: [{ kind: "github", value: "ada-codes" }] }],
  }),
];

describe("GET /people", () => {
  it("answers one person per account, tied across channels by the record that ties them, most involved first", async () => {
    const ws = newWorkspace("people-list");
    await ingestIn(ws, "ada", adaItems());
    const people = await peopleOf(ws, "ada");
    const ada = people.find((p) => p.name === "Ada Lovelace");
    expect(keysOf(ada)).toEqual(["email:ada@acme.com", "slack:T1/U024"]);
    expect(ada?.items).toBe(3);
    expect(ada?.lastSeen).toBe("2026-03-01T10:00:00.000Z");
    expect(people[0]?.id).toBe(ada?.id);
    expect(people.some((p) => keysOf(p).includes("github:ada-codes"))).toBe(true);
    expect(people.find((p) => keysOf(p).includes("email:ben@acme.com"))?.name).toBe("Ben Reed");
    // Every item's people were read: nothing older was left out.
    const page = await json<{ complete: boolean }>(await send(ws, "ada", "GET", "/people"));
    expect(page.complete).toBe(true);
  });

  it("filters by a name or an identifier and pages with a cursor", async () => {
    const ws = newWorkspace("people-q");
    await ingestIn(ws, "ada", adaItems());
    expect((await peopleOf(ws, "ada", "?q=lovelace")).map((p) => p.name)).toEqual(["Ada Lovelace"]);
    expect(keysOf((await peopleOf(ws, "ada", "?q=U024"))[0])).toContain("slack:T1/U024");
    const first = await send(ws, "ada", "GET", "/people?limit=1");
    const page = await json<{ people: PersonSummary[]; nextCursor: string | null }>(first);
    expect(page.people).toHaveLength(1);
    expect(page.nextCursor).not.toBeNull();
    const second = await json<{ people: PersonSummary[] }>(
      await send(ws, "ada", "GET", `/people?limit=1&cursor=${page.nextCursor}`),
    );
    expect(second.people[0]?.id).not.toBe(page.people[0]?.id);
    expect((await send(ws, "ada", "GET", "/people?cursor=nonsense")).status).toBe(400);
    expect((await send(ws, "ada", "GET", "/people?limit=0")).status).toBe(400);
    expect((await send(ws, "ada", "GET", "/people?q=%00")).status).toBe(400);
    expect((await send(ws, "ada", "GET", `/people?q=${"x".repeat(201)}`)).status).toBe(400);
    expect((await send(ws, "ada", "GET", "/items?person=%00")).status).toBe(400);
  });

  it("marks the caller herself by her token's email claim and never crosses workspaces", async () => {
    const ws = newWorkspace("people-self");
    await ingestIn(ws, "ada", adaItems());
    const self = (
      await json<{ people: PersonSummary[] }>(
        await send(ws, "ada", "GET", "/people", undefined, READ_WRITE, { email: "ada@acme.com" }),
      )
    ).people.find((p) => p.self);
    expect(keysOf(self)).toEqual(["email:ada@acme.com", "slack:T1/U024", "user:ada"]);
    expect(await peopleOf(newWorkspace("people-other"), "ada")).toEqual([]);
  });
});

describe("the caller herself", () => {
  it("is tied to the address an admin gives her with PUT /members/:user, and untied with null", async () => {
    const ws = newWorkspace("people-member-email");
    await ingestIn(ws, "ada", adaItems());
    const put = await send(ws, "root", "PUT", "/members/ada", { email: "Ada@ACME.com" }, ADMIN);
    expect(put.status).toBe(200);
    expect(await json<{ email: string | null }>(put)).toMatchObject({ email: "ada@acme.com" });
    expect((await peopleOf(ws, "ada")).find((p) => p.self)?.name).toBe("Ada Lovelace");
    expect((await send(ws, "root", "PUT", "/members/ada", { email: "not an address" }, ADMIN)).status).toBe(
      422,
    );
    expect((await send(ws, "root", "PUT", "/members/ada", { email: null }, ADMIN)).status).toBe(200);
    expect((await peopleOf(ws, "ada")).some((p) => p.self)).toBe(false);
  });
});

describe("GET /people/suggestions", () => {
  it("lists a pair the scores leave in doubt; accepting it merges, rejecting it keeps them apart", async () => {
    const ws = newWorkspace("people-suggest");
    await ingestIn(ws, "ada", [
      item({ externalId: "work", author: "Ada Lovelace <ada@acme.com>", participants: [] }),
      item({ externalId: "home", author: "Ada Lovelace <al1815@gmail.com>", participants: [] }),
    ]);
    interface Side {
      identifier: string;
      person: { id: string; name: string } | null;
    }
    const suggestions = async () =>
      (
        await json<{ suggestions: { a: Side; b: Side; score: number; reasons: string[] }[] }>(
          await send(ws, "ada", "GET", "/people/suggestions"),
        )
      ).suggestions;
    const [first] = await suggestions();
    expect([first?.a.identifier, first?.b.identifier].sort()).toEqual([
      "email:ada@acme.com",
      "email:al1815@gmail.com",
    ]);
    expect(first?.reasons.length).toBeGreaterThan(0);
    const reject = await send(ws, "ada", "POST", "/people/distinct", {
      a: first!.a.identifier,
      b: first!.b.identifier,
    });
    expect(reject.status).toBe(201);
    expect(await suggestions()).toEqual([]);
    const { id } = await json<{ id: string }>(reject);
    expect((await send(ws, "ada", "DELETE", `/people/corrections/${id}`)).status).toBe(200);
    expect(await suggestions()).toHaveLength(1);
    expect(
      (await send(ws, "ada", "POST", "/people/merge", { a: first!.a.person!.id, b: first!.b.person!.id }))
        .status,
    ).toBe(201);
    expect(await suggestions()).toEqual([]);
    expect(keysOf(await personHolding(ws, "ada", "email", "ada@acme.com"))).toEqual([
      "email:ada@acme.com",
      "email:al1815@gmail.com",
    ]);
  });
});

describe("GET /people/:id", () => {
  it("answers every identifier with its names, link and evidence; an unknown id is a 404", async () => {
    const ws = newWorkspace("people-one");
    const written = await ingestIn(ws, "ada", adaItems());
    const ada = await personHolding(ws, "ada", "email", "ada@acme.com");
    const res = await send(ws, "ada", "GET", `/people/${ada!.id}`);
    expect(res.status).toBe(200);
    const detail = await json<PersonDetail>(res);
    const email = detail.identifiers.find((i) => i.key === "email:ada@acme.com")!;
    expect(email).toMatchObject({ names: ["Ada Lovelace"], link: "hard", confidence: 1 });
    const idOf = (externalId: string) => written.find((w) => w.externalId === externalId)!.id;
    expect(email.items.sort()).toEqual([idOf("mail-1"), idOf("slack-1")].sort());
    expect(detail.recentItems.sort()).toEqual([idOf("mail-1"), idOf("slack-1"), idOf("slack-2")].sort());
    expect((await send(ws, "ada", "GET", "/people/p_0123456789abcdef")).status).toBe(404);
    // Another workspace's member with the same user id does not find her.
    expect((await send(newWorkspace("people-none"), "ada", "GET", `/people/${ada!.id}`)).status).toBe(404);
  });
});

describe("GET /items?person=", () => {
  it("finds every item naming any identifier of the person, in keyword and newest-first search", async () => {
    const ws = newWorkspace("people-search");
    const written = await ingestIn(ws, "ada", [
      ...adaItems(),
      item({ externalId: "other", author: "Carl <carl@acme.com>", participants: [] }),
    ]);
    const idOf = (externalId: string) => written.find((w) => w.externalId === externalId)!.id;
    const ada = await personHolding(ws, "ada", "email", "ada@acme.com");
    const expected = [idOf("mail-1"), idOf("slack-1"), idOf("slack-2")].sort();
    expect(await searchIds(ws, "ada", `person=${ada!.id}`)).toEqual(expected);
    expect(await searchIds(ws, "ada", `person=${ada!.id}&q=body`)).toEqual(expected);
    expect(await searchIds(ws, "ada", `person=${ada!.id}&q=body&mode=keyword`)).toEqual(expected);
    // A name resolves through the person's identifiers too: slack-2 names only the Slack account.
    expect(await searchIds(ws, "ada", "people=Ada%20Lovelace")).toEqual(expected);
    const unknown = await send(ws, "ada", "GET", "/items?person=p_0123456789abcdef");
    expect(unknown.status).toBe(400);
    // With a query, the statistics are under way when the person turns out unknown: the same refusal.
    const unknownWithQuery = await send(ws, "ada", "GET", "/items?person=p_0123456789abcdef&q=body");
    expect(unknownWithQuery.status).toBe(400);
  });

  it("reads a people name that names a person as that person's identifiers, and any other as text", async () => {
    const ws = newWorkspace("people-names");
    const written = await ingestIn(ws, "ada", [
      ...adaItems(),
      item({ externalId: "longer", author: "Ada Lovelace-Byron <byron@globex.com>", participants: [] }),
    ]);
    const idOf = (externalId: string) => written.find((w) => w.externalId === externalId)!.id;
    const ada = [idOf("mail-1"), idOf("slack-1"), idOf("slack-2")].sort();
    // "Ada Lovelace" is a person: her items, not every author whose name contains the words.
    expect(await searchIds(ws, "ada", "people=Ada%20Lovelace")).toEqual(ada);
    expect(await searchIds(ws, "ada", "people=ada%40acme.com")).toEqual(ada);
    // A part of a name names no person: the author and participant text, as before people existed.
    expect(await searchIds(ws, "ada", "people=lovelace")).toEqual(
      [idOf("mail-1"), idOf("slack-1"), idOf("longer")].sort(),
    );
    // Both at once: the person's items and the text's.
    expect(await searchIds(ws, "ada", "people=Ada%20Lovelace,byron")).toEqual(
      [...ada, idOf("longer")].sort(),
    );
  });

  it("scopes a transcript's speaker to its call: the same label in two calls is two people, each finding its own call", async () => {
    const ws = newWorkspace("people-speakers");
    const speaker = () => ({
      role: "participant" as const,
      name: "Ada L.",
      handles: [{ kind: "speaker" as const, value: "Ada L." }],
    });
    const call = (externalId: string) =>
      item({
        source: "zoom",
        externalId,
        kind: "call",
        author: undefined,
        participants: [],
        people: [speaker()],
      });
    const written = await ingestIn(ws, "ada", [call("call-1"), call("call-2")]);
    const [first, second] = ["call-1", "call-2"].map((e) => written.find((w) => w.externalId === e)!.id);
    const inFirst = await personHolding(ws, "ada", "speaker", `${first}#ada l.`);
    const inSecond = await personHolding(ws, "ada", "speaker", `${second}#ada l.`);
    expect(inFirst && inSecond && inFirst.id !== inSecond.id).toBe(true);
    expect(await searchIds(ws, "ada", `person=${inFirst!.id}`)).toEqual([first]);
    expect(await searchIds(ws, "ada", `person=${inSecond!.id}&q=body`)).toEqual([second]);
  });
});

describe("corrections", () => {
  it("a merge, its withdrawal and a split take effect on the very next read of people and search", async () => {
    const ws = newWorkspace("people-merge");
    const written = await ingestIn(ws, "ada", adaItems());
    const idOf = (externalId: string) => written.find((w) => w.externalId === externalId)!.id;
    const merge = await send(ws, "ada", "POST", "/people/merge", {
      a: "email:ada@acme.com",
      b: "github:ada-codes",
    });
    expect(merge.status).toBe(201);
    const correction = await json<{ id: string; kind: string; author: string }>(merge);
    expect(correction).toMatchObject({ kind: "merge", author: "ada" });

    const merged = await personHolding(ws, "ada", "github", "ada-codes");
    expect(keysOf(merged)).toEqual(["email:ada@acme.com", "github:ada-codes", "slack:T1/U024"]);
    expect(await searchIds(ws, "ada", `person=${merged!.id}`)).toContain(idOf("pr-1"));
    const detail = await json<PersonDetail>(await send(ws, "ada", "GET", `/people/${merged!.id}`));
    expect(detail.identifiers.find((i) => i.key === "github:ada-codes")?.link).toBe("confirmed");

    const listed = await json<{ corrections: { id: string; withdrawnAt: string | null }[] }>(
      await send(ws, "ada", "GET", "/people/corrections"),
    );
    expect(listed.corrections.map((c) => c.id)).toEqual([correction.id]);

    expect((await send(ws, "ada", "DELETE", `/people/corrections/${correction.id}`)).status).toBe(200);
    expect(keysOf(await personHolding(ws, "ada", "github", "ada-codes"))).toEqual(["github:ada-codes"]);
    expect(await searchIds(ws, "ada", `person=${merged!.id}`)).not.toContain(idOf("pr-1"));
    expect((await send(ws, "ada", "DELETE", `/people/corrections/${correction.id}`)).status).toBe(404);

    const split = await send(ws, "ada", "POST", "/people/split", { identifier: "slack:T1/U024" });
    expect(split.status).toBe(201);
    expect(keysOf(await personHolding(ws, "ada", "email", "ada@acme.com"))).toEqual(["email:ada@acme.com"]);
    const slack = await personHolding(ws, "ada", "slack", "T1/U024");
    expect(keysOf(slack)).toEqual(["slack:T1/U024"]);
    expect(await searchIds(ws, "ada", `person=${slack!.id}`)).toEqual(
      [idOf("slack-1"), idOf("slack-2")].sort(),
    );
  });

  it("a saved person id answers the person its identifier became part of after a merge", async () => {
    const ws = newWorkspace("people-moved");
    await ingestIn(ws, "ada", adaItems());
    const github = await personHolding(ws, "ada", "github", "ada-codes");
    await send(ws, "ada", "POST", "/people/merge", { a: "email:ada@acme.com", b: github!.id });
    const res = await send(ws, "ada", "GET", `/people/${github!.id}`);
    expect(res.status).toBe(200);
    const moved = await json<PersonDetail>(res);
    expect(moved.requestedId).toBe(github!.id);
    expect(moved.identifiers.map((i) => i.key)).toContain("email:ada@acme.com");
  });

  it("distinct keeps two identifiers apart even against a hard link", async () => {
    const ws = newWorkspace("people-distinct");
    await ingestIn(ws, "ada", adaItems());
    const res = await send(ws, "ada", "POST", "/people/distinct", {
      a: "email:ada@acme.com",
      b: "slack:T1/U024",
    });
    expect(res.status).toBe(201);
    expect(keysOf(await personHolding(ws, "ada", "email", "ada@acme.com"))).toEqual(["email:ada@acme.com"]);
  });

  it("refuses hostile and impossible corrections with nothing written", async () => {
    const ws = newWorkspace("people-hostile");
    await ingestIn(ws, "ada", adaItems());
    const refusals: [unknown, number][] = [
      [{ a: "email:ada@acme.com\u0000", b: "github:ada-codes" }, 422],
      [{ a: "email:ada@acme.com", b: "\ud800" }, 422],
      [{ a: "x".repeat(100_000), b: "github:ada-codes" }, 413],
      [{ a: "email:ada@acme.com" }, 422],
      [{ a: "email:ada@acme.com", b: "github:ada-codes", extra: 1 }, 422],
      [{ a: "email:ada@acme.com", b: "EMAIL:Ada@Acme.com" }, 400],
      [{ a: "nonsense", b: "github:ada-codes" }, 400],
      [{ a: "email:ada@acme.com", b: "email:nobody@acme.com" }, 404],
      [{ a: "email:ada@acme.com", b: "p_0123456789abcdef" }, 404],
      ["{not json", 400],
    ];
    for (const [body, status] of refusals) {
      const res = await send(ws, "ada", "POST", "/people/merge", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
    }
    const readOnly = await send(
      ws,
      "ada",
      "POST",
      "/people/merge",
      { a: "email:ada@acme.com", b: "github:ada-codes" },
      ["memory:read"],
    );
    expect(readOnly.status).toBe(403);
    expect((await send(ws, "ada", "DELETE", "/people/corrections/not-a-uuid")).status).toBe(404);
    const listed = await json<{ corrections: unknown[] }>(
      await send(ws, "ada", "GET", "/people/corrections"),
    );
    expect(listed.corrections).toEqual([]);
  });

  it("an item with hostile or oversized people is refused whole, with nothing written", async () => {
    const ws = newWorkspace("people-hostile-items");
    const bad: ItemPayload[] = [
      item({ externalId: "a", people: [{ role: "author", name: "Ada\u0000" }] }),
      item({ externalId: "b", people: [{ role: "author", email: "\ud800@acme.com" }] }),
      item({
        externalId: "c",
        people: Array.from({ length: 1001 }, () => ({ role: "participant" as const, name: "x" })),
      }),
      item({ externalId: "d", people: [{ role: "author", name: "x".repeat(100_000) }] }),
      item({
        externalId: "e",
        people: Array.from({ length: 50 }, (_, i) => ({
          role: "participant" as const,
          handles: Array.from({ length: 50 }, (_, j) => ({ kind: "github" as const, value: `u${i}-${j}` })),
        })),
      }),
    ];
    for (const entry of bad) {
      const res = await send(ws, "ada", "POST", "/items", { items: [item({ externalId: "fine" }), entry] });
      expect(res.status, entry.externalId).toBe(422);
    }
    expect(await peopleOf(ws, "ada")).toEqual([]);
  });
});

describe("access loss", () => {
  const grace = (extra: Partial<ItemPayload> = {}) =>
    item({ externalId: "grace", author: "Grace Hopper <grace@navy.mil>", participants: [], ...extra });
  const sees = async (ws: string, user: string) => {
    const people = await peopleOf(ws, user);
    return allValues(people).includes("grace@navy.mil") || allNames(people).includes("Grace Hopper");
  };

  it("unsharing and deleting take the identifier and its name from the viewer's next request", async () => {
    const ws = newWorkspace("people-unshare");
    await registerMembersIn(ws, "ada", "ben");
    const [shared] = await ingestIn(ws, "ada", [grace({ sharedWith: ["ben"] })]);
    expect(await sees(ws, "ben")).toBe(true);
    await ingestIn(ws, "ada", [grace({ sharedWith: [] })]);
    expect(await sees(ws, "ben")).toBe(false);
    expect(await sees(ws, "ada")).toBe(true);
    expect((await send(ws, "ada", "DELETE", `/items/${shared!.id}`)).status).toBe(204);
    expect(await sees(ws, "ada")).toBe(false);
  });

  it("a correction naming an identifier the viewer cannot see is not shown to them", async () => {
    const ws = newWorkspace("people-correction-scope");
    await registerMembersIn(ws, "ada", "ben");
    await ingestIn(ws, "ada", [
      grace({ sharedWith: ["ben"] }),
      item({ externalId: "private", author: "Kay <kay@navy.mil>" }),
    ]);
    expect(
      (await send(ws, "ada", "POST", "/people/merge", { a: "email:grace@navy.mil", b: "email:kay@navy.mil" }))
        .status,
    ).toBe(201);
    const benCorrections = await json<{ corrections: unknown[] }>(
      await send(ws, "ben", "GET", "/people/corrections"),
    );
    expect(benCorrections.corrections).toEqual([]);
    const benGrace = await personHolding(ws, "ben", "email", "grace@navy.mil");
    expect(keysOf(benGrace)).toEqual(["email:grace@navy.mil"]);
    // Ben cannot name Kay's address in a correction of his own: he does not see it.
    expect(
      (await send(ws, "ben", "POST", "/people/split", { identifier: "email:kay@navy.mil" })).status,
    ).toBe(404);
  });

  it("leaving the team an item was shared with takes its people away", async () => {
    const ws = newWorkspace("people-team");
    await registerMembersIn(ws, "ada", "ben");
    expect(
      (await send(ws, "root", "PUT", "/teams/ops", { name: "Ops", members: ["ada", "ben"] }, ADMIN)).status,
    ).toBe(201);
    await ingestIn(ws, "ada", [grace({ sharedWith: ["team:ops"] })]);
    expect(await sees(ws, "ben")).toBe(true);
    expect(
      (await send(ws, "root", "PUT", "/teams/ops", { name: "Ops", members: ["ada"] }, ADMIN)).status,
    ).toBe(200);
    expect(await sees(ws, "ben")).toBe(false);
  });

  it("erasing the owner removes what her items said about people, and her corrections, from everyone's view", async () => {
    const ws = newWorkspace("people-erase");
    await registerMembersIn(ws, "ada", "ben");
    await ingestIn(ws, "ada", [
      grace({ sharedWith: ["ben"] }),
      item({ externalId: "kay", author: "Kay Lee <kay@navy.mil>", participants: [], sharedWith: ["ben"] }),
    ]);
    // Ben's own item names both addresses, without names.
    await ingestIn(ws, "ben", [
      item({ externalId: "b", author: "grace@navy.mil", participants: ["kay@navy.mil"] }),
    ]);
    const merge = await send(ws, "ada", "POST", "/people/merge", {
      a: "email:grace@navy.mil",
      b: "email:kay@navy.mil",
    });
    expect(merge.status).toBe(201);
    expect(keysOf(await personHolding(ws, "ben", "email", "grace@navy.mil"))).toEqual([
      "email:grace@navy.mil",
      "email:kay@navy.mil",
    ]);
    expect(allNames(await peopleOf(ws, "ben"))).toContain("Grace Hopper");

    expect((await send(ws, "ada", "DELETE", "/me")).status).toBe(204);
    const after = await peopleOf(ws, "ben");
    expect(allNames(after)).not.toContain("Grace Hopper");
    expect(allNames(after)).not.toContain("Kay Lee");
    expect(keysOf(await personHolding(ws, "ben", "email", "grace@navy.mil"))).toEqual([
      "email:grace@navy.mil",
    ]);
    const corrections = await json<{ corrections: unknown[] }>(
      await send(ws, "ben", "GET", "/people/corrections"),
    );
    expect(corrections.corrections).toEqual([]);
  });
});
