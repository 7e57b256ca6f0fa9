/** The ItemStore adapter against the real database: what the research tools will call. */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { createItemStore } from "../src/db/item-store";
import { createPgErasureStore } from "../src/db/pg-erasure-store";
import { items } from "../src/db/schema";
import { AppError } from "../src/domain/errors";
import type { ItemInput, ItemKind } from "../src/domain/item-schema";
import { newUserId } from "./support/auth";
import { registerMembers } from "./support/workspaces";

const db = createDb(parseConfig(env));
const store = createItemStore(db);

const input = (externalId: string, overrides: Partial<ItemInput> = {}): ItemInput => ({
  source: "gmail",
  externalId,
  kind: "email",
  title: `About ${externalId}`,
  body: `Body of ${externalId}`,
  author: "Dana <dana@example.com>",
  participants: [],
  occurredAt: new Date("2026-03-01T10:00:00Z"),
  ...overrides,
});

describe("ItemStore.upsert", () => {
  it("writes nothing when one item of the batch fails in the database", async () => {
    const owner = newUserId();
    const batch = [input("ok-1"), input("bad", { kind: "fax" as ItemKind }), input("ok-2")];
    await expect(store.upsert(owner, batch)).rejects.toThrow();
    expect(await db.select().from(items).where(eq(items.ownerId, owner))).toEqual([]);
  });

  it("rejects a batch that repeats a (source, externalId) as a validation error", async () => {
    const owner = newUserId();
    const error = await store.upsert(owner, [input("a"), input("b"), input("a")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: "validation_failed",
      details: { items: [{ index: 2, path: "externalId", message: "duplicates the item at index 0" }] },
    });
  });

  it("names the owner and the old and new sharers of changed items as affected, and nobody when unchanged", async () => {
    const owner = newUserId("owner");
    const [x, y, z] = [newUserId("x"), newUserId("y"), newUserId("z")];
    await registerMembers(x, y, z);
    const first = await store.upsert(owner, [input("a", { sharedWith: [x, owner] }), input("b")]);
    expect(first.affectedSubjects.sort()).toEqual([owner, x].sort());
    const second = await store.upsert(owner, [
      input("a", { sharedWith: [y] }),
      input("b"),
      input("c", { sharedWith: [z] }),
    ]);
    expect(second.outcomes.map((o) => o.status)).toEqual(["updated", "unchanged", "created"]);
    expect(second.affectedSubjects.sort()).toEqual([owner, x, y, z].sort());
    const third = await store.upsert(owner, [input("a", { sharedWith: [y] })]);
    expect(third).toEqual({
      outcomes: [expect.objectContaining({ status: "unchanged" })],
      affectedSubjects: [],
      redactedSubjects: [],
    });
  });

  it("resolves a bare @mention to the mentioning item's own source first", async () => {
    const owner = newUserId();
    const created = await store.upsert(owner, [
      input("X-1", { source: "jira", kind: "task" }),
      input("X-1", { source: "linear", kind: "task" }),
    ]);
    const [note] = (
      await store.upsert(owner, [input("n", { source: "linear", kind: "note", body: "blocked on @X-1." })])
    ).outcomes;
    const links = await store.linked(owner, note!.id);
    expect(links.map((l) => [l.kind, l.item.id])).toEqual([["mention", created.outcomes[1]!.id]]);
  });
});

describe("ItemStore reads", () => {
  it("returns dates as Date objects from every read", async () => {
    const owner = newUserId();
    const { outcomes } = await store.upsert(owner, [
      input("a", { links: [{ externalId: "b" }] }),
      input("b"),
    ]);
    const got = await store.get(owner, outcomes[0]!.id);
    expect(got!.occurredAt).toEqual(new Date("2026-03-01T10:00:00Z"));
    expect(got!.createdAt).toBeInstanceOf(Date);
    expect(got!.updatedAt).toBeInstanceOf(Date);
    expect(got!.links[0]!.item.occurredAt).toBeInstanceOf(Date);
    const [many] = await store.getMany(owner, [outcomes[0]!.id]);
    expect(many!.createdAt).toBeInstanceOf(Date);
    const page = await store.search(owner, { q: "body", limit: 10 });
    expect(page.items[0]!.occurredAt).toBeInstanceOf(Date);
    const [recent] = await store.recent(owner, { since: new Date("2026-01-01"), limit: 1 });
    expect(recent!.occurredAt).toBeInstanceOf(Date);
  });

  it("getMany returns only the visible items among the ids and ignores malformed ones", async () => {
    const owner = newUserId("owner");
    const other = newUserId("other");
    const mine = (await store.upsert(owner, [input("a"), input("b")])).outcomes;
    const theirs = (await store.upsert(other, [input("c")])).outcomes;
    const got = await store.getMany(owner, [
      mine[0]!.id,
      mine[1]!.id,
      theirs[0]!.id,
      "nope",
      crypto.randomUUID(),
    ]);
    expect(got.map((i) => i.externalId).sort()).toEqual(["a", "b"]);
    expect(await store.getMany(owner, [])).toEqual([]);
  });

  it("recent lists visible items that occurred or arrived since a date, newest first, filtered by kind and limited", async () => {
    const owner = newUserId();
    const upcoming = new Date(Date.now() + 7 * 86_400_000);
    await store.upsert(owner, [
      input("old", { occurredAt: new Date("2025-12-01T00:00:00Z") }),
      input("upcoming", { kind: "event", occurredAt: upcoming }),
    ]);
    const old = (await store.recent(owner, { since: new Date(0), limit: 10 })).find(
      (i) => i.externalId === "old",
    );
    const since = new Date(old!.updatedAt.getTime() + 1);
    // Arrived after `since`, though they occurred long before it (a connector's backlog).
    await store.upsert(owner, [
      input("t1", { kind: "task", occurredAt: new Date("2026-03-02T00:00:00Z") }),
      input("e1", { occurredAt: new Date("2026-03-03T00:00:00Z") }),
      input("e2", { occurredAt: new Date("2026-03-04T00:00:00Z") }),
    ]);
    expect((await store.recent(owner, { since, limit: 10 })).map((i) => i.externalId)).toEqual([
      "upcoming",
      "e2",
      "e1",
      "t1",
    ]);
    expect(
      (await store.recent(owner, { since, kinds: ["email"], limit: 1 })).map((i) => i.externalId),
    ).toEqual(["e2"]);
  });

  it("linked follows links both ways and hides nothing from the owner but everything from a stranger", async () => {
    const owner = newUserId();
    const { outcomes } = await store.upsert(owner, [
      input("a", { links: [{ externalId: "b", kind: "reply" }] }),
      input("b"),
      input("c", { body: "see @[gmail:b]" }),
    ]);
    const links = await store.linked(owner, outcomes[1]!.id);
    expect(links.map((l) => [l.direction, l.kind, l.item.externalId]).sort()).toEqual([
      ["incoming", "mention", "c"],
      ["incoming", "reply", "a"],
    ]);
    expect(await store.linked(newUserId("stranger"), outcomes[1]!.id)).toEqual([]);
  });

  it("topPeople counts each person once per item across authors and participants, without the viewer", async () => {
    const owner = newUserId();
    await store.upsert(owner, [
      input("1", { author: "Priya", participants: ["priya", "Sam"] }),
      input("2", { author: "Sam", participants: ["Lee", owner] }),
      input("3", { author: owner, participants: ["PRIYA"], occurredAt: new Date("2026-04-01T00:00:00Z") }),
      input("4", { author: null as unknown as undefined, participants: ["Sam"] }),
    ]);
    const people = await store.topPeople(owner, { limit: 10 });
    expect(people.map((p) => [p.person.toLowerCase(), p.items])).toEqual([
      ["sam", 3],
      ["priya", 2],
      ["lee", 1],
    ]);
    const since = await store.topPeople(owner, { since: new Date("2026-03-15T00:00:00Z"), limit: 10 });
    expect(since.map((p) => [p.person.toLowerCase(), p.items])).toEqual([["priya", 1]]);
    expect(await store.topPeople(newUserId("stranger"), { limit: 10 })).toEqual([]);
  });

  it("digest separates new from updated items by kind and names the busiest threads; topPeople names the changed items' people", async () => {
    const owner = newUserId();
    await store.upsert(owner, [input("old-1"), input("old-2", { kind: "task" })]);
    const existing = await store.recent(owner, { since: new Date(0), limit: 10 });
    const since = new Date(Math.max(...existing.map((i) => i.updatedAt.getTime())) + 1);

    await store.upsert(owner, [
      input("old-2", { kind: "task", body: "now done" }),
      input("n-1", { title: "Budget review", author: "Ana", metadata: { threadId: "budget" } }),
      input("n-2", { title: "Re: Budget review", author: "Ben", metadata: { threadId: "budget" } }),
      input("n-3", { title: "RE: budget review", author: "Ana", metadata: { threadId: "budget" } }),
      input("n-4", { title: "Lunch", author: "Ana" }),
      input("n-5", { kind: "message", title: "Re: Lunch", author: "Cy" }),
    ]);
    const digest = await store.digest(owner, since);
    expect(digest.since).toEqual(since);
    expect(digest.newByKind).toEqual({ email: 4, message: 1 });
    expect(digest.updatedByKind).toEqual({ task: 1 });
    expect(digest.busiestThreads).toEqual([
      { title: "Budget review", items: 3 },
      { title: "Lunch", items: 2 },
      { title: "About old-2", items: 1 },
    ]);
    // The people of the changed items, which a refresh names when it has no people view.
    const changedPeople = await store.topPeople(owner, { changedSince: since, limit: 10 });
    expect(changedPeople[0]).toEqual({ person: "Ana", items: 3 });
    const stranger = newUserId("stranger");
    expect(await store.digest(stranger, since)).toMatchObject({
      newByKind: {},
      updatedByKind: {},
      busiestThreads: [],
    });
    expect(await store.topPeople(stranger, { changedSince: since, limit: 10 })).toEqual([]);
  });

  it("removeItem: the owner deletes, a sharee leaves, a stranger finds nothing; each names who could see it", async () => {
    const erasure = createPgErasureStore(db);
    const owner = newUserId("owner");
    const colleague = newUserId("colleague");
    const stranger = newUserId("stranger");
    await registerMembers(owner, colleague, stranger);
    const [shared] = (await store.upsert(owner, [input("s", { sharedWith: [colleague] })])).outcomes;
    expect(await erasure.removeItem(stranger, shared!.id, new Date())).toEqual({ outcome: "not_found" });

    const left = await erasure.removeItem(colleague, shared!.id, new Date());
    expect(left.outcome).toBe("left");
    expect(await store.get(colleague, shared!.id)).toBeNull();
    expect((await store.get(owner, shared!.id))!.sharedWith).toEqual([]);

    const deleted = await erasure.removeItem(owner, shared!.id, new Date());
    expect(deleted).toEqual({ outcome: "deleted", removal: { visibleTo: [owner], redactedSubjects: [] } });
    expect(await store.get(owner, shared!.id)).toBeNull();
    expect(await erasure.removeItem(owner, shared!.id, new Date())).toEqual({ outcome: "not_found" });
  });
});

describe("ItemStore.edgesOf", () => {
  it("answers the resolved links touching the given items, either way, whose two ends the viewer may see", async () => {
    const owner = newUserId("owner");
    const viewer = newUserId("viewer");
    await registerMembers(viewer);
    const { outcomes } = await store.upsert(owner, [
      input("parent", { sharedWith: [viewer] }),
      input("reply", { sharedWith: [viewer], links: [{ externalId: "parent", kind: "reply" }] }),
      input("mention", { body: "See @[gmail:parent] and @[gmail:not-yet]." }),
      input("other", { sharedWith: [viewer] }),
    ]);
    const [parent, reply, mention] = outcomes.map((o) => o.id);
    const asOwner = await store.edgesOf(owner, [parent!]);
    expect(asOwner.map((e) => [e.fromId, e.toId, e.kind]).sort()).toEqual(
      [
        [reply, parent, "reply"],
        [mention, parent, "mention"],
      ].sort(),
    );
    expect(await store.edgesOf(owner, [reply!])).toEqual([{ fromId: reply, toId: parent, kind: "reply" }]);
    // The viewer does not see the mentioning item, so that link is not theirs.
    expect(await store.edgesOf(viewer, [parent!])).toEqual([{ fromId: reply, toId: parent, kind: "reply" }]);
    expect(await store.edgesOf(newUserId("stranger"), [parent!])).toEqual([]);
    expect(await store.edgesOf(owner, ["not-a-uuid"])).toEqual([]);
  });
});
