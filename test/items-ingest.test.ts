import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { memories } from "../src/db/schema";
import { readJsonBody } from "../src/http/read-body";
import { newUserId } from "./support/auth";
import { call, type ItemPayload, ingest, item, json, type Outcome, warmUpWorker } from "./support/items";
import { registerMembers } from "./support/workspaces";

beforeAll(warmUpWorker);

interface StoredItem {
  id: string;
  body: string;
  title: string | null;
  createdAt: string;
  updatedAt: string;
  sharedWith: string[];
  links: { direction: string; kind: string; item: { id: string; externalId: string } }[];
}

const getItem = async (userId: string, id: string) =>
  json<StoredItem>(await call(userId, "GET", `/items/${id}`));

describe("POST /items", () => {
  it("creates a batch and answers each item's id and status in input order", async () => {
    const user = newUserId();
    const outcomes = await ingest(user, [
      item({ externalId: "m-1" }),
      item({ externalId: "m-2", source: "slack", kind: "message", title: undefined }),
      item({ externalId: "t-1", source: "linear", kind: "task" }),
    ]);
    expect(outcomes.map((o) => [o.source, o.externalId, o.status])).toEqual([
      ["gmail", "m-1", "created"],
      ["slack", "m-2", "created"],
      ["linear", "t-1", "created"],
    ]);
    for (const o of outcomes) expect(o.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(outcomes.map((o) => o.id)).size).toBe(3);
    const stored = await getItem(user, outcomes[1]!.id);
    expect(stored).toMatchObject({ body: "Body of m-2", title: null });
  });

  it("reports the same batch sent again as all unchanged and writes nothing", async () => {
    const user = newUserId();
    const batch = [
      item({ externalId: "a", metadata: { threadId: "t1", labels: ["x", "y"] } }),
      item({ externalId: "b" }),
    ];
    const first = await ingest(user, batch);
    const before = await getItem(user, first[0]!.id);
    const again = await ingest(user, [
      // Same content, keys of metadata in another order: still the same content.
      { ...batch[0]!, metadata: { labels: ["x", "y"], threadId: "t1" } },
      batch[1]!,
    ]);
    expect(again.map((o) => o.status)).toEqual(["unchanged", "unchanged"]);
    expect(again.map((o) => o.id)).toEqual(first.map((o) => o.id));
    expect((await getItem(user, first[0]!.id)).updatedAt).toBe(before.updatedAt);
  });

  it("updates an item whose content changed and leaves the others unchanged", async () => {
    const user = newUserId();
    const first = await ingest(user, [item({ externalId: "a" }), item({ externalId: "b" })]);
    const before = await getItem(user, first[0]!.id);
    const second = await ingest(user, [
      item({ externalId: "a", body: "Edited body" }),
      item({ externalId: "b" }),
      item({ externalId: "c" }),
    ]);
    expect(second.map((o) => o.status)).toEqual(["updated", "unchanged", "created"]);
    expect(second[0]!.id).toBe(first[0]!.id);
    const after = await getItem(user, first[0]!.id);
    expect(after.body).toBe("Edited body");
    expect(after.createdAt).toBe(before.createdAt);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
  });

  it("accepts an empty batch", async () => {
    const res = await call(newUserId(), "POST", "/items", { body: { items: [] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ items: [] });
  });

  it("marks the owner and everyone the items are shared with as having new material", async () => {
    const owner = newUserId();
    const colleague = newUserId("colleague");
    await registerMembers(colleague);
    const db = createDb(parseConfig(env));
    await ingest(owner, [item({ externalId: "a", sharedWith: [colleague] })]);
    const rows = await db
      .select({ subjectKey: memories.subjectKey, changedAt: memories.materialChangedAt })
      .from(memories)
      .where(inArray(memories.subjectKey, [owner, colleague]));
    expect(rows.map((r) => r.subjectKey).sort()).toEqual([owner, colleague].sort());
    for (const row of rows) expect(row.changedAt).toBeInstanceOf(Date);

    const [ownerRow] = await db.select().from(memories).where(eq(memories.subjectKey, owner));
    await ingest(owner, [item({ externalId: "a", sharedWith: [colleague] })]);
    const [unchangedRow] = await db.select().from(memories).where(eq(memories.subjectKey, owner));
    expect(unchangedRow!.materialChangedAt).toEqual(ownerRow!.materialChangedAt);
  });

  it("needs the items:write scope", async () => {
    const res = await call(newUserId(), "POST", "/items", {
      body: { items: [item({ externalId: "a" })] },
      scopes: ["memory:read"],
    });
    expect(res.status).toBe(403);
    expect((await json<{ error: { code: string } }>(res)).error.code).toBe("forbidden");
  });
});

describe("POST /items validation", () => {
  type Problem = { index: number; path: string; message: string };
  const problemsOf = async (res: Response) =>
    (await json<{ error: { code: string; details: { items: Problem[] } } }>(res)).error;

  it("answers 422 listing every problem of every bad item, and stores none of the batch", async () => {
    const user = newUserId();
    const { body: _omitted, ...noBody } = item({ externalId: "no-body" });
    const res = await call(user, "POST", "/items", {
      body: {
        items: [
          item({ externalId: "fine" }),
          noBody,
          { ...item({ externalId: "bad-kind" }), kind: "fax" },
          item({ externalId: "no-zone", occurredAt: "2026-03-01T10:00:00" }),
          item({ externalId: "bad-url", url: "javascript:alert(1)" }),
          { ...item({ externalId: "typo" }), occurred_at: "2026-03-01T10:00:00Z" },
          item({ externalId: "bad-link", links: [{ externalId: "" }] }),
          item({ externalId: "", source: "" }),
          item({ externalId: "fine" }),
          item({ externalId: "nul", body: "a\u0000b" }),
          "not an object",
        ],
      },
    });
    expect(res.status).toBe(422);
    const error = await problemsOf(res);
    expect(error.code).toBe("validation_failed");
    const byIndex = (i: number) => error.details.items.filter((p) => p.index === i).map((p) => p.path);
    expect(byIndex(0)).toEqual([]);
    expect(byIndex(1)).toEqual(["body"]);
    expect(byIndex(2)).toEqual(["kind"]);
    expect(byIndex(3)).toEqual(["occurredAt"]);
    expect(byIndex(4)).toEqual(["url"]);
    expect(byIndex(5)).toEqual(["(item)"]);
    expect(byIndex(6)).toEqual(["links.0.externalId"]);
    expect(byIndex(7).sort()).toEqual(["externalId", "source"]);
    expect(byIndex(8)).toEqual(["externalId"]);
    expect(error.details.items.find((p) => p.index === 8)!.message).toMatch(/index 0/);
    expect(byIndex(9)).toEqual(["body"]);
    expect(byIndex(10)).toEqual(["(item)"]);

    const search = await json<{ items: unknown[] }>(await call(user, "GET", "/items"));
    expect(search.items).toEqual([]);
  });

  it("answers 400 for a body that is not JSON or not { items: [...] }", async () => {
    const user = newUserId();
    for (const body of [
      "{not json",
      JSON.stringify([item({ externalId: "a" })]),
      JSON.stringify({ item: [] }),
    ]) {
      const res = await call(user, "POST", "/items", { body });
      expect(res.status, body).toBe(400);
      expect((await json<{ error: { code: string } }>(res)).error.code).toBe("bad_request");
    }
  });

  it("answers 413 for more than 500 items", async () => {
    const items: ItemPayload[] = Array.from({ length: 501 }, (_, i) => item({ externalId: `x-${i}` }));
    const res = await call(newUserId(), "POST", "/items", { body: { items } });
    expect(res.status).toBe(413);
    expect((await json<{ error: { code: string } }>(res)).error.code).toBe("payload_too_large");
  });

  it("accepts exactly 500 items in one request", async () => {
    const items = Array.from({ length: 500 }, (_, i) =>
      item({ externalId: `x-${i}`, body: `Note number ${i}` }),
    );
    const outcomes = await ingest(newUserId(), items);
    expect(outcomes).toHaveLength(500);
    expect(outcomes.every((o: Outcome) => o.status === "created")).toBe(true);
  });

  it("answers 413 for a body over 5 MB, by Content-Length and by the bytes actually sent", async () => {
    const user = newUserId();
    const big = JSON.stringify({ items: [item({ externalId: "big", body: "x".repeat(5 * 1024 * 1024) })] });
    const declared = await call(user, "POST", "/items", { body: big });
    expect(declared.status).toBe(413);

    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
        controller.close();
      },
    });
    const { exports } = await import("cloudflare:workers");
    const { bearer } = await import("./support/auth");
    const streamed = await exports.default.fetch("http://local/items", {
      method: "POST",
      headers: { ...(await bearer(user)), "content-type": "application/json" },
      body: stream,
    });
    expect(streamed.status).toBe(413);
    expect((await json<{ error: { code: string } }>(streamed)).error.code).toBe("payload_too_large");
  });
});

describe("POST /items links and mentions", () => {
  it("resolves explicit links to items of the same batch and keeps links to unknown items pending", async () => {
    const user = newUserId();
    const [reply, original] = await ingest(user, [
      item({
        externalId: "reply",
        links: [
          { externalId: "original", kind: "reply" },
          { source: "linear", externalId: "PAY-7" },
        ],
      }),
      item({ externalId: "original" }),
    ]);
    let stored = await getItem(user, reply!.id);
    expect(stored.links.map((l) => [l.direction, l.kind, l.item.id])).toEqual([
      ["outgoing", "reply", original!.id],
    ]);

    // The pending link resolves when its target arrives.
    const [task] = await ingest(user, [item({ externalId: "PAY-7", source: "linear", kind: "task" })]);
    stored = await getItem(user, reply!.id);
    expect(stored.links.map((l) => [l.kind, l.item.id]).sort()).toEqual(
      [
        ["reference", task!.id],
        ["reply", original!.id],
      ].sort(),
    );
    const taskView = await getItem(user, task!.id);
    expect(taskView.links).toEqual([
      expect.objectContaining({
        direction: "incoming",
        kind: "reference",
        item: expect.objectContaining({ id: reply!.id }),
      }),
    ]);
  });

  it("turns @[source:externalId], @[externalId] and bare @externalId of a known item into mention links", async () => {
    const user = newUserId();
    const [doc, task] = await ingest(user, [
      item({ externalId: "design-doc", source: "gdrive", kind: "doc" }),
      item({ externalId: "PAY-12", source: "linear", kind: "task" }),
    ]);
    const [note, later] = await ingest(user, [
      item({
        externalId: "note-1",
        source: "linear",
        kind: "note",
        body: "See @[gdrive:design-doc] and @PAY-12. Ping @alice, mail bob@example.com, later @[not-yet].",
      }),
      item({ externalId: "not-yet", source: "linear", kind: "task" }),
    ]);
    const stored = await getItem(user, note!.id);
    expect(stored.links.every((l) => l.kind === "mention" && l.direction === "outgoing")).toBe(true);
    expect(stored.links.map((l) => l.item.id).sort()).toEqual([doc!.id, task!.id, later!.id].sort());
  });

  it("replaces an item's links when it is ingested again with other links", async () => {
    const user = newUserId();
    const [a, b, c] = await ingest(user, [
      item({ externalId: "a", links: [{ externalId: "b" }] }),
      item({ externalId: "b" }),
      item({ externalId: "c" }),
    ]);
    expect((await getItem(user, a!.id)).links.map((l) => l.item.id)).toEqual([b!.id]);
    const [again] = await ingest(user, [item({ externalId: "a", links: [{ externalId: "c" }] })]);
    expect(again!.status).toBe("updated");
    expect((await getItem(user, a!.id)).links.map((l) => l.item.id)).toEqual([c!.id]);
    expect((await getItem(user, b!.id)).links).toEqual([]);
  });

  it("never links to another user's item with the same external id", async () => {
    const alice = newUserId("alice");
    const bob = newUserId("bob");
    await ingest(bob, [item({ externalId: "secret" })]);
    const [mine] = await ingest(alice, [
      item({ externalId: "mine", body: "about @secret", links: [{ externalId: "secret" }] }),
    ]);
    expect((await getItem(alice, mine!.id)).links).toEqual([]);
  });
});

describe("readJsonBody", () => {
  const streamOf = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text);
        for (let i = 0; i < bytes.length; i += 4) controller.enqueue(bytes.slice(i, i + 4));
        controller.close();
      },
    });

  it("counts the bytes actually read when no Content-Length is declared", async () => {
    const request = new Request("http://local/items", {
      method: "POST",
      body: streamOf('{"items": [1, 2, 3]}'),
    });
    expect(request.headers.get("content-length")).toBeNull();
    await expect(readJsonBody(request, 10)).rejects.toMatchObject({ code: "payload_too_large" });
    const small = new Request("http://local/items", { method: "POST", body: streamOf('{"items": []}') });
    expect(await readJsonBody(small, 100)).toEqual({ items: [] });
  });

  it("rejects a declared Content-Length over the limit before reading, and bytes that are not UTF-8", async () => {
    const declared = new Request("http://local/items", {
      method: "POST",
      body: "{}",
      headers: { "content-length": "999999", "content-type": "application/json" },
    });
    await expect(readJsonBody(declared, 100)).rejects.toMatchObject({ code: "payload_too_large" });
    const latin1 = new Request("http://local/items", {
      method: "POST",
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
      headers: { "content-type": "application/json" },
    });
    await expect(readJsonBody(latin1, 100)).rejects.toMatchObject({ code: "bad_request" });
  });
});
