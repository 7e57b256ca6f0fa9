import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { itemLinks, memories } from "../src/db/schema";
import { newUserId } from "./support/auth";
import { call, ingest, item, json, warmUpWorker } from "./support/items";
import { registerMembers } from "./support/workspaces";

beforeAll(warmUpWorker);

interface Link {
  direction: "outgoing" | "incoming";
  kind: string;
  item: { id: string; externalId: string; occurredAt: string };
}
interface FullItem {
  id: string;
  ownerId: string;
  externalId: string;
  occurredAt: string;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, unknown>;
  sharedWith: string[];
  links: Link[];
}
const errorCode = async (res: Response) => (await json<{ error: { code: string } }>(res)).error.code;
const searchIds = async (user: string, params = "") =>
  (await json<{ items: { id: string }[] }>(await call(user, "GET", `/items?${params}`))).items.map(
    (i) => i.id,
  );

describe("GET /items/:id", () => {
  it("answers the item with its fields and its links both ways", async () => {
    const user = newUserId();
    const [a, b, c] = await ingest(user, [
      item({
        externalId: "a",
        url: "https://mail.example.com/a",
        metadata: { threadId: "th-1", labels: ["work"] },
        links: [{ externalId: "b", kind: "reply" }],
      }),
      item({ externalId: "b", occurredAt: "2026-02-01T00:00:00.000Z" }),
      item({ externalId: "c", body: "Following up on @[gmail:b]" }),
    ]);
    const res = await call(user, "GET", `/items/${b!.id}`);
    expect(res.status).toBe(200);
    const body = await json<FullItem>(res);
    expect(body).toMatchObject({
      id: b!.id,
      ownerId: user,
      externalId: "b",
      occurredAt: "2026-02-01T00:00:00.000Z",
      sharedWith: [],
    });
    expect(Date.parse(body.createdAt)).not.toBeNaN();
    expect(body.links.map((l) => [l.direction, l.kind, l.item.id]).sort()).toEqual(
      [
        ["incoming", "mention", c!.id],
        ["incoming", "reply", a!.id],
      ].sort(),
    );
    const aView = await json<FullItem>(await call(user, "GET", `/items/${a!.id}`));
    expect(aView.metadata).toEqual({ threadId: "th-1", labels: ["work"] });
    expect(aView.links).toEqual([
      {
        direction: "outgoing",
        kind: "reply",
        item: expect.objectContaining({ id: b!.id, externalId: "b", occurredAt: "2026-02-01T00:00:00.000Z" }),
      },
    ]);
  });

  it("answers 404 for an unknown id, a malformed id and another user's item", async () => {
    const alice = newUserId("alice");
    const bob = newUserId("bob");
    const [bobs] = await ingest(bob, [item({ externalId: "private" })]);
    for (const id of [crypto.randomUUID(), "not-a-uuid", bobs!.id]) {
      const res = await call(alice, "GET", `/items/${id}`);
      expect(res.status, id).toBe(404);
      expect(await errorCode(res)).toBe("not_found");
    }
  });

  it("needs a token and the memory:read scope", async () => {
    const user = newUserId();
    const [mine] = await ingest(user, [item({ externalId: "a" })]);
    const { exports } = await import("cloudflare:workers");
    const anonymous = await exports.default.fetch(`http://local/items/${mine!.id}`);
    expect(anonymous.status).toBe(401);
    const writeOnly = await call(user, "GET", `/items/${mine!.id}`, { scopes: ["items:write"] });
    expect(writeOnly.status).toBe(403);
    const admin = await call(user, "GET", `/items/${mine!.id}`, { scopes: ["admin"] });
    expect(admin.status).toBe(200);
  });
});

describe("cross-user isolation", () => {
  it("keeps another user's items out of search, reads and deletes", async () => {
    const alice = newUserId("alice");
    const bob = newUserId("bob");
    const [bobs] = await ingest(bob, [item({ externalId: "x", title: "Zebra crossing budget" })]);
    expect(await searchIds(alice, "q=zebra")).toEqual([]);
    expect(await searchIds(alice)).toEqual([]);
    const del = await call(alice, "DELETE", `/items/${bobs!.id}`);
    expect(del.status).toBe(404);
    expect((await call(bob, "GET", `/items/${bobs!.id}`)).status).toBe(200);
  });

  it("gives each user their own item for the same source and external id", async () => {
    const alice = newUserId("alice");
    const bob = newUserId("bob");
    const [bobs] = await ingest(bob, [item({ externalId: "same", body: "Bob's version" })]);
    const [alices] = await ingest(alice, [item({ externalId: "same", body: "Alice's version" })]);
    expect(alices!.status).toBe("created");
    expect(alices!.id).not.toBe(bobs!.id);
    const bobView = await json<{ body: string }>(await call(bob, "GET", `/items/${bobs!.id}`));
    expect(bobView.body).toBe("Bob's version");
  });

  it("lets the users in shared_with read an item, but not change it", async () => {
    const owner = newUserId("owner");
    const colleague = newUserId("colleague");
    const stranger = newUserId("stranger");
    await registerMembers(colleague, stranger);
    const [shared, hidden] = await ingest(owner, [
      item({
        externalId: "shared",
        title: "Quokka launch review",
        sharedWith: [colleague],
        links: [{ externalId: "hidden" }],
      }),
      item({ externalId: "hidden", title: "Quokka salary bands" }),
    ]);

    expect(await searchIds(colleague, "q=quokka")).toEqual([shared!.id]);
    expect(await searchIds(stranger, "q=quokka")).toEqual([]);
    const view = await json<FullItem>(await call(colleague, "GET", `/items/${shared!.id}`));
    expect(view.sharedWith).toEqual([colleague]);
    // The link to an item the colleague may not see is left out for them, not for the owner.
    expect(view.links).toEqual([]);
    const ownerView = await json<FullItem>(await call(owner, "GET", `/items/${shared!.id}`));
    expect(ownerView.links.map((l) => l.item.id)).toEqual([hidden!.id]);
    expect((await call(colleague, "GET", `/items/${hidden!.id}`)).status).toBe(404);
    expect((await call(stranger, "GET", `/items/${shared!.id}`)).status).toBe(404);

    const [own] = await ingest(colleague, [item({ externalId: "shared", body: "colleague's own" })]);
    expect(own!.id).not.toBe(shared!.id);
    const still = await json<{ body: string }>(await call(owner, "GET", `/items/${shared!.id}`));
    expect(still.body).toBe("Body of shared");
  });

  it("names the reader's own copy of a link's target the reader may not see (same source and external id)", async () => {
    const owner = newUserId("owner");
    const colleague = newUserId("colleague");
    await registerMembers(colleague);
    const [runbook, ownersPr] = await ingest(owner, [
      item({
        externalId: "runbook",
        sharedWith: [colleague],
        body: "Keep dual-write on (see @[github:ledger#820]).",
      }),
      item({ source: "github", externalId: "ledger#820", kind: "pull_request" }),
    ]);
    const [colleaguesPr] = await ingest(colleague, [
      item({ source: "github", externalId: "ledger#820", kind: "pull_request" }),
    ]);
    const linked = async (user: string) =>
      (await json<FullItem>(await call(user, "GET", `/items/${runbook!.id}`))).links.map((l) => [
        l.direction,
        l.kind,
        l.item.id,
      ]);
    expect(await linked(owner)).toEqual([["outgoing", "mention", ownersPr!.id]]);
    expect(await linked(colleague)).toEqual([["outgoing", "mention", colleaguesPr!.id]]);
    // Shared with the colleague too, the link's own target wins over the colleague's copy.
    await ingest(owner, [
      item({ source: "github", externalId: "ledger#820", kind: "pull_request", sharedWith: [colleague] }),
    ]);
    expect(await linked(colleague)).toEqual([["outgoing", "mention", ownersPr!.id]]);
  });

  it("stops showing an item to a user removed from shared_with", async () => {
    const owner = newUserId("owner");
    const colleague = newUserId("colleague");
    await registerMembers(colleague);
    const [shared] = await ingest(owner, [item({ externalId: "s", sharedWith: [colleague] })]);
    expect((await call(colleague, "GET", `/items/${shared!.id}`)).status).toBe(200);
    await ingest(owner, [item({ externalId: "s", sharedWith: [] })]);
    expect((await call(colleague, "GET", `/items/${shared!.id}`)).status).toBe(404);
  });
});

describe("DELETE /items/:id", () => {
  it("removes the item, its links and its search hits, and answers 204", async () => {
    const owner = newUserId("owner");
    const colleague = newUserId("colleague");
    await registerMembers(colleague);
    const db = createDb(parseConfig(env));
    const [target, pointer] = await ingest(owner, [
      item({
        externalId: "target",
        title: "Narwhal retrospective",
        sharedWith: [colleague],
        links: [{ externalId: "pointer" }],
      }),
      item({ externalId: "pointer", body: "see @target" }),
    ]);
    expect(await searchIds(owner, "q=narwhal")).toEqual([target!.id]);
    expect((await db.select().from(itemLinks).where(eq(itemLinks.toItem, target!.id))).length).toBe(1);

    const res = await call(owner, "DELETE", `/items/${target!.id}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");

    expect((await call(owner, "GET", `/items/${target!.id}`)).status).toBe(404);
    expect(await searchIds(owner, "q=narwhal")).toEqual([]);
    expect(await searchIds(colleague, "q=narwhal")).toEqual([]);
    const pointerView = await json<FullItem>(await call(owner, "GET", `/items/${pointer!.id}`));
    expect(pointerView.links).toEqual([]);
    expect(await db.select().from(itemLinks).where(eq(itemLinks.fromItem, target!.id))).toEqual([]);
    expect(await db.select().from(itemLinks).where(eq(itemLinks.toItem, target!.id))).toEqual([]);

    const [colleagueMemory] = await db.select().from(memories).where(eq(memories.subjectKey, colleague));
    expect(colleagueMemory?.materialChangedAt).toBeInstanceOf(Date);
    expect((await call(owner, "DELETE", `/items/${target!.id}`)).status).toBe(404);
  });

  it("answers 404 for a malformed id and needs the items:write scope", async () => {
    const owner = newUserId();
    const [mine] = await ingest(owner, [item({ externalId: "a" })]);
    expect((await call(owner, "DELETE", "/items/123")).status).toBe(404);
    const readOnly = await call(owner, "DELETE", `/items/${mine!.id}`, { scopes: ["memory:read"] });
    expect(readOnly.status).toBe(403);
    expect((await call(owner, "GET", `/items/${mine!.id}`)).status).toBe(200);
  });
});
