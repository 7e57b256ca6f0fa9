import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { bearer, newUserId } from "./support/auth";
import { item } from "./support/items";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  fetchSettled,
  hoursAgo,
  ingestSettled,
  installAgent,
  seedMemory,
  services,
  statement,
} from "./support/memory-agent";
import { registerMembers } from "./support/workspaces";

const used: string[] = [];
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

async function user() {
  const userId = newUserId();
  used.push(userId);
  await registerMembers(userId);
  await installAgent(userId, new FakeGenerator());
  return userId;
}

const call = async (userId: string, method: string, path: string) =>
  exports.default.fetch(`http://local${path}`, { method, headers: await bearer(userId) });

interface MemoryBody {
  memory: string;
  version: string;
  citations: { id: string }[];
}

describe("deleting an item", () => {
  it("redacts every version that cited it in the same request, and asks the agent for a fresh memory", async () => {
    const me = await user();
    const [a, b] = await ingestSettled(me, [item({ externalId: "a" }), item({ externalId: "b" })]);
    const older = await seedMemory(me, [statement("Work", "Old fact", a!)], { generatedAt: hoursAgo(5) });
    const current = await seedMemory(
      me,
      [
        statement("Work", "Leads payments", a!),
        statement("Work", "Ships on Friday", b!, a!),
        statement("People", "Works with Fox", b!),
      ],
      { generatedAt: hoursAgo(1) },
    );
    const before = await call(me, "GET", "/memory");
    expect(before.headers.get("ETag")).toBe(`"${current}"`);

    const deleted = await fetchSettled(me, "DELETE", `/items/${a}`);
    expect(deleted.status).toBe(204);

    const after = await call(me, "GET", "/memory");
    expect(after.status).toBe(200);
    const body = (await after.json()) as MemoryBody;
    expect(body.version).toBe(current);
    expect(body.memory).toBe("## People\n- Works with Fox [1]");
    expect(body.citations.map((c) => c.id)).toEqual([b]);
    expect(after.headers.get("ETag")).not.toBe(`"${current}"`);
    expect((await call(me, "GET", "/memory?format=json").then((r) => r.json())) as object).toMatchObject({
      statements: [{ text: "Works with Fox" }],
    });

    const old = (await (await call(me, "GET", `/memory/versions/${older}`)).json()) as {
      markdown: string;
      statements: unknown[];
      redactedAt: string | null;
    };
    expect(old).toMatchObject({ markdown: "", statements: [] });
    expect(old.redactedAt).not.toBeNull();
    const list = (await (await call(me, "GET", "/memory/versions")).json()) as {
      versions: { id: string; redactedAt: string | null; current: boolean }[];
    };
    expect(list.versions.map((v) => [v.id, v.current, v.redactedAt !== null])).toEqual([
      [current, true, true],
      [older, false, true],
    ]);

    expect(await agentStub(me).status()).toMatchObject({ phase: "scheduled" });
  });

  it("redacts the memories of other subjects the item was shared with", async () => {
    const owner = await user();
    const reader = await user();
    const [shared] = await ingestSettled(owner, [item({ externalId: "s", sharedWith: [reader] })]);
    const [own] = await ingestSettled(reader, [item({ externalId: "r" })]);
    await seedMemory(
      reader,
      [statement("Work", "Owner's plan", shared!), statement("Work", "Own fact", own!)],
      { generatedAt: hoursAgo(1) },
    );

    expect((await fetchSettled(owner, "DELETE", `/items/${shared}`)).status).toBe(204);
    const body = (await (await call(reader, "GET", "/memory")).json()) as MemoryBody;
    expect(body.memory).toBe("## Work\n- Own fact [1]");
  });

  it("answers 404 for someone else's item and redacts nothing", async () => {
    const owner = await user();
    const stranger = await user();
    const [a] = await ingestSettled(owner, [item({ externalId: "a" })]);
    await seedMemory(owner, [statement("Work", "Leads payments", a!)], { generatedAt: hoursAgo(1) });
    expect((await call(stranger, "DELETE", `/items/${a}`)).status).toBe(404);
    expect((await call(stranger, "DELETE", "/items/not-a-uuid")).status).toBe(404);
    const body = (await (await call(owner, "GET", "/memory")).json()) as MemoryBody;
    expect(body.memory).toBe("## Work\n- Leads payments [1]");
  });
});

describe("DELETE /me", () => {
  it("erases the caller's items, memory, versions, runs and agent state; GET /memory starts from nothing", async () => {
    const me = await user();
    const friend = await user();
    const [mine, sharedMine] = await ingestSettled(me, [
      item({ externalId: "a" }),
      item({ externalId: "b", sharedWith: [friend] }),
    ]);
    const [theirs] = await ingestSettled(friend, [item({ externalId: "f" })]);
    await seedMemory(me, [statement("Work", "Leads payments", mine!)], { generatedAt: hoursAgo(1) });
    await seedMemory(
      friend,
      [statement("Work", "Reads my plan", sharedMine!), statement("Work", "Own work", theirs!)],
      { generatedAt: hoursAgo(1) },
    );
    expect((await agentStub(me).status()).subjectKey).toBe(me);

    const erased = await fetchSettled(me, "DELETE", "/me");
    expect(erased.status).toBe(204);

    expect(await agentStub(me).status()).toMatchObject({ subjectKey: null, phase: "idle", runId: null });
    const store = services().memoryReader;
    expect(await store.current(me)).toBeNull();
    expect((await store.runs(me, { limit: 10 })).entries).toEqual([]);
    expect((await store.versions(me, { limit: 10 })).entries).toEqual([]);
    expect((await call(me, "GET", `/items/${mine}`)).status).toBe(404);

    const friendMemory = (await (await call(friend, "GET", "/memory")).json()) as MemoryBody;
    expect(friendMemory.memory).toBe("## Work\n- Own work [1]");

    await installAgent(me, new FakeGenerator());
    const empty = await fetchSettled(me, "GET", "/memory");
    expect(empty.status).toBe(200);
    expect(await empty.json()).toMatchObject({ empty: true, version: null });
    await ingestSettled(me, [item({ externalId: "after-erase" })]);
    const fresh = await fetchSettled(me, "GET", "/memory");
    expect(fresh.status).toBe(202);
    expect(await agentStub(me).status()).toMatchObject({ subjectKey: me, phase: "scheduled" });
  });

  it("needs the items:write scope", async () => {
    const me = await user();
    const res = await exports.default.fetch("http://local/me", {
      method: "DELETE",
      headers: await bearer(me, ["memory:read"]),
    });
    expect(res.status).toBe(403);
  });
});
