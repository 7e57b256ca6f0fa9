/**
 * Workspaces and teams through the whole worker: isolation across workspaces on every route, sharing only
 * with known members and teams, the members and teams APIs, and the access-loss invariant on every path
 * (the cited text is gone from the current and every old version, the ETag changed, and a run was asked
 * for, all by the time the request that caused it returns).
 */
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE, teamKey, userKey } from "../src/domain/workspaces";
import { etagOf } from "../src/memory/read-model";
import { READ_WRITE } from "./support/auth";
import { item, warmUpWorker } from "./support/items";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  hoursAgo,
  installAgent,
  seedMemory,
  statement,
  testDb,
} from "./support/memory-agent";
import { sendAs, type Caller as WorkerCaller } from "./support/worker-calls";
import { registerMembersIn } from "./support/workspaces";

const ADMIN = [...READ_WRITE, "admin"] as const;

beforeAll(warmUpWorker);
const agents: string[] = [];
afterEach(async () => {
  for (const key of agents.splice(0)) await clearAlarm(key);
});

type Caller = Required<Pick<WorkerCaller, "workspace" | "user">> & Pick<WorkerCaller, "scopes">;

const send = (caller: Caller, method: string, path: string, body?: unknown) =>
  sendAs(caller, method, path, body);

async function ok<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

async function ingestAs(caller: Caller, items: unknown[]): Promise<string[]> {
  const body = await ok<{ items: { id: string }[] }>(await send(caller, "POST", "/items", { items }));
  return body.items.map((i) => i.id);
}

const newWorkspace = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

describe("isolation across workspaces", () => {
  it("keeps items, search, links, teams, members, memories, versions and runs of one workspace out of another", async () => {
    const acme = newWorkspace("acme");
    const globex = newWorkspace("globex");
    // The same user id in two workspaces is two different people.
    const adaA: Caller = { workspace: acme, user: "ada" };
    const adaG: Caller = { workspace: globex, user: "ada" };
    const benA: Caller = { workspace: acme, user: "ben" };
    const adminA: Caller = { workspace: acme, user: "root", scopes: ADMIN };
    const adminG: Caller = { workspace: globex, user: "root", scopes: ADMIN };
    await registerMembersIn(acme, "ada", "ben");
    await registerMembersIn(globex, "ada");

    const [plan, target] = await ingestAs(adaA, [
      item({
        externalId: "plan",
        title: "Quokka acquisition plan",
        body: "see @target",
        sharedWith: ["ben"],
      }),
      item({ externalId: "target", title: "Quokka price sheet" }),
    ]);
    expect((await ok<{ items: unknown[] }>(await send(benA, "GET", "/items?q=quokka"))).items).toHaveLength(
      1,
    );
    // Globex's ada: same id, same (source, externalId), and none of it.
    expect((await ok<{ items: unknown[] }>(await send(adaG, "GET", "/items?q=quokka"))).items).toEqual([]);
    expect((await send(adaG, "GET", `/items/${plan}`)).status).toBe(404);
    expect((await send(adaG, "GET", `/items/${target}`)).status).toBe(404);
    expect((await send(adaG, "DELETE", `/items/${plan}`)).status).toBe(404);
    const [own] = await ingestAs(adaG, [
      item({ externalId: "plan", title: "Globex plan", body: "see @target" }),
    ]);
    expect(own).not.toBe(plan);
    const ownView = await ok<{ links: unknown[] }>(await send(adaG, "GET", `/items/${own}`));
    expect(ownView.links).toEqual([]);
    // Sharing into another workspace is impossible: its users are unknown here.
    expect(
      (await send(adaG, "POST", "/items", { items: [item({ externalId: "x", sharedWith: ["ben"] })] }))
        .status,
    ).toBe(422);

    // Teams and members.
    await ok(
      await send(adminA, "PUT", "/teams/payments", { name: "Payments", members: ["ada", "ben"] }),
      201,
    );
    expect((await send(adaG, "GET", "/teams/payments")).status).toBe(404);
    expect((await send(adminG, "GET", "/teams/payments")).status).toBe(404);
    expect((await send(adaG, "GET", "/teams/payments/memory")).status).toBe(404);
    expect((await ok<{ teams: unknown[] }>(await send(adminG, "GET", "/teams"))).teams).toEqual([]);
    expect(
      (await ok<{ teams: { id: string }[] }>(await send(adaA, "GET", "/teams"))).teams.map((t) => t.id),
    ).toEqual(["payments"]);
    const membersG = await ok<{ members: { userId: string }[] }>(await send(adminG, "GET", "/members"));
    expect(membersG.members.map((m) => m.userId).sort()).toEqual(["ada", "root"]);
    expect((await send(adminG, "DELETE", "/members/ben")).status).toBe(404);
    expect((await send(adminG, "PUT", "/teams/x", { name: "X", members: ["ben"] })).status).toBe(422);

    // Memories, versions and runs.
    const keyA = userKey(acme, "ada");
    agents.push(keyA, userKey(globex, "ada"));
    await installAgent(keyA, new FakeGenerator());
    await installAgent(userKey(globex, "ada"), new FakeGenerator());
    const version = await seedMemory(keyA, [statement("Work", "Plans the Quokka acquisition", plan!)], {
      generatedAt: hoursAgo(1),
    });
    const mineA = await ok<{ memory: string }>(await send(adaA, "GET", "/memory"));
    expect(mineA.memory).toContain("Quokka");
    const seenG = await send(adaG, "GET", "/memory");
    expect(await seenG.text()).not.toContain("Quokka");
    expect((await send(adaG, "GET", `/memory/versions/${version}`)).status).toBe(404);
    expect((await ok<{ versions: unknown[] }>(await send(adaG, "GET", "/memory/versions"))).versions).toEqual(
      [],
    );
    expect((await ok<{ runs: unknown[] }>(await send(adaG, "GET", "/memory/runs"))).runs).toEqual([]);
    // The default workspace's ada is a third person.
    const adaDefault: Caller = { workspace: DEFAULT_WORKSPACE, user: `ada-${crypto.randomUUID()}` };
    expect((await ok<{ items: unknown[] }>(await send(adaDefault, "GET", "/items?q=quokka"))).items).toEqual(
      [],
    );
  });

  it("refuses a token whose workspace claim is not a usable id", async () => {
    const res = await send({ workspace: "bad\u0001ws", user: "ada" }, "GET", "/items");
    expect(res.status).toBe(401);
  });
});

describe("sharing", () => {
  it("answers 422 for an unknown member or team, naming each, and writes nothing", async () => {
    const ws = newWorkspace("share");
    await registerMembersIn(ws, "ada", "ben");
    const ada: Caller = { workspace: ws, user: "ada" };
    const res = await send(ada, "POST", "/items", {
      items: [
        item({ externalId: "a", title: "Walrus", sharedWith: ["ben"] }),
        item({ externalId: "b", title: "Walrus", sharedWith: ["mallory", "team:ghosts", "team:bad id"] }),
      ],
    });
    const body = await ok<{
      error: { code: string; details: { items: { index: number; message: string }[] } };
    }>(res, 422);
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.details.items.map((p) => [p.index, p.message.split('"')[1]])).toEqual([
      [1, "mallory"],
      [1, "team:ghosts"],
      [1, "team:bad id"],
    ]);
    expect((await ok<{ items: unknown[] }>(await send(ada, "GET", "/items?q=walrus"))).items).toEqual([]);
    // No subject was created for the strangers either.
    const rows = await testDb().execute(
      sql`select count(*)::int as n from memories where subject_id in (${userKey(ws, "mallory")}, ${teamKey(ws, "ghosts")})`,
    );
    expect(Number(rows.rows[0]?.n)).toBe(0);
  });

  it("lets a member who was removed by an admin in no more, until an admin adds them back", async () => {
    const ws = newWorkspace("removal");
    const admin: Caller = { workspace: ws, user: "root", scopes: ADMIN };
    const ben: Caller = { workspace: ws, user: "ben" };
    await ok(await send(ben, "GET", "/items"));
    expect((await send(admin, "DELETE", "/members/root")).status).toBe(400);
    expect((await send(admin, "DELETE", "/members/ben")).status).toBe(204);
    expect((await send(ben, "GET", "/items")).status).toBe(403);
    expect(
      (
        await send({ workspace: ws, user: "ada" }, "POST", "/items", {
          items: [item({ externalId: "z", sharedWith: ["ben"] })],
        })
      ).status,
    ).toBe(422);
    await ok(await send(admin, "PUT", "/members/ben"), 201);
    await ok(await send(admin, "PUT", "/members/ben"), 200);
    await ok(await send(ben, "GET", "/items"));
    expect((await send(ben, "PUT", "/members/eve")).status).toBe(403);
  });
});

describe("the access-loss invariant", () => {
  interface Scene {
    ws: string;
    owner: Caller;
    sharee: Caller;
    admin: Caller;
    /** The key whose memory must lose the statement. */
    subject: string;
    itemId: string;
  }

  /**
   * The sharee's memory cites an item of the owner (shared with the sharee directly, or with a team the
   * sharee is in) and one of their own, in a current and an older version.
   */
  async function scene(via: "direct" | "team"): Promise<Scene & { versions: string[]; etag: string }> {
    const ws = newWorkspace(`loss-${via}`);
    const owner: Caller = { workspace: ws, user: "olga" };
    const sharee: Caller = { workspace: ws, user: "sam" };
    const admin: Caller = { workspace: ws, user: "root", scopes: ADMIN };
    await registerMembersIn(ws, "olga", "sam");
    if (via === "team")
      await ok(await send(admin, "PUT", "/teams/core", { name: "Core", members: ["olga", "sam"] }), 201);
    const subject = userKey(ws, "sam");
    agents.push(subject, userKey(ws, "olga"), teamKey(ws, "core"));
    await installAgent(subject, new FakeGenerator());
    await installAgent(userKey(ws, "olga"), new FakeGenerator());
    await installAgent(teamKey(ws, "core"), new FakeGenerator());
    const [itemId] = await ingestAs(owner, [
      item({
        externalId: "secret",
        title: "Merger terms",
        sharedWith: [via === "team" ? "team:core" : "sam"],
      }),
    ]);
    const [own] = await ingestAs(sharee, [item({ externalId: "mine", title: "Own notes" })]);
    const older = await seedMemory(subject, [statement("Work", "Knows the merger terms", itemId!)], {
      generatedAt: hoursAgo(5),
    });
    const current = await seedMemory(
      subject,
      [statement("Work", "Knows the merger terms", itemId!), statement("Work", "Keeps own notes", own!)],
      { generatedAt: hoursAgo(1) },
    );
    await clearAlarm(subject);
    return {
      ws,
      owner,
      sharee,
      admin,
      subject,
      itemId: itemId!,
      versions: [older, current],
      etag: `"${current}"`,
    };
  }

  async function expectRedacted(s: Scene & { versions: string[]; etag: string }) {
    const rows = await testDb().execute(sql`
      select v.id, v.markdown, v.redacted_at, v.statements::text as statements, m.current_version_id = v.id as current,
             m.markdown as served
      from memory_versions v join memories m on m.subject_id = v.subject_id
      where v.subject_id = ${s.subject} order by v.created_at`);
    expect(rows.rows.map((r) => r.id)).toEqual(s.versions);
    for (const row of rows.rows) {
      expect(String(row.markdown)).not.toContain("merger");
      expect(String(row.statements)).not.toContain(s.itemId);
      expect(row.redacted_at).not.toBeNull();
      expect(String(row.served)).not.toContain("merger");
    }
    const currentRow = rows.rows.find((r) => r.current === true || r.current === "t")!;
    const etag = etagOf({ id: String(currentRow.id), redactedAt: new Date(String(currentRow.redacted_at)) });
    expect(etag).not.toBe(s.etag);
    expect(String(currentRow.markdown)).toBe("## Work\n- Keeps own notes [1]");
    // A fresh memory was asked for by the same request.
    expect(await agentStub(s.subject).status()).toMatchObject({ phase: "scheduled" });
  }

  it("item deleted by its owner", async () => {
    const s = await scene("direct");
    expect((await send(s.owner, "DELETE", `/items/${s.itemId}`)).status).toBe(204);
    await expectRedacted(s);
  });

  it("item re-ingested without the share", async () => {
    const s = await scene("direct");
    await ingestAs(s.owner, [item({ externalId: "secret", title: "Merger terms", sharedWith: [] })]);
    await expectRedacted(s);
    expect((await send(s.sharee, "GET", `/items/${s.itemId}`)).status).toBe(404);
  });

  it("sharee leaves the share (DELETE /items/:id by the sharee)", async () => {
    const s = await scene("direct");
    expect((await send(s.sharee, "DELETE", `/items/${s.itemId}`)).status).toBe(204);
    await expectRedacted(s);
    const still = await ok<{ sharedWith: string[] }>(await send(s.owner, "GET", `/items/${s.itemId}`));
    expect(still.sharedWith).toEqual([]);
  });

  it("a member who sees an item only through a team cannot leave it alone (403) and nothing changes", async () => {
    const s = await scene("team");
    expect((await send(s.sharee, "DELETE", `/items/${s.itemId}`)).status).toBe(403);
    const current = await ok<{ memory: string }>(await send(s.sharee, "GET", "/memory"));
    expect(current.memory).toContain("merger");
  });

  it("member removed from the team (PUT /teams/:team without them)", async () => {
    const s = await scene("team");
    await ok(await send(s.admin, "PUT", "/teams/core", { name: "Core", members: ["olga"] }));
    await expectRedacted(s);
    expect((await send(s.sharee, "GET", "/teams/core/memory")).status).toBe(404);
  });

  it("team deleted: members' memories redacted, the team's own memory erased", async () => {
    const s = await scene("team");
    const team = teamKey(s.ws, "core");
    await seedMemory(team, [statement("Projects", "Negotiates the merger", s.itemId)], {
      generatedAt: hoursAgo(1),
    });
    expect((await send(s.admin, "DELETE", "/teams/core")).status).toBe(204);
    await expectRedacted(s);
    const left = await testDb().execute(sql`
      select (select count(*) from memory_versions where subject_id = ${team})::int as versions,
             (select count(*) from memories where subject_id = ${team})::int as memories,
             (select count(*) from items where shared_with @> array[${team}::text])::int as shares`);
    expect(left.rows[0]).toMatchObject({ versions: 0, memories: 0, shares: 0 });
    expect((await send(s.admin, "GET", "/teams/core")).status).toBe(404);
  });

  it("member removed from the workspace", async () => {
    const s = await scene("team");
    expect((await send(s.admin, "DELETE", "/members/sam")).status).toBe(204);
    await expectRedacted(s);
    expect((await send(s.sharee, "GET", "/memory")).status).toBe(403);
  });

  it("a run finishing after the loss cannot write a version citing what the subject no longer sees", async () => {
    const s = await scene("direct");
    await ingestAs(s.owner, [item({ externalId: "secret", title: "Merger terms", sharedWith: [] })]);
    await expect(
      seedMemory(s.subject, [statement("Work", "Knows the merger terms", s.itemId)], {
        generatedAt: new Date(),
      }),
    ).rejects.toThrow(/cited item/);
  });

  it("owner erased (DELETE /me)", async () => {
    const s = await scene("direct");
    expect((await send(s.owner, "DELETE", "/me")).status).toBe(204);
    await expectRedacted(s);
  });
});
