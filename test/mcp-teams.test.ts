/**
 * Teams over MCP: get_memory, refresh_memory and search_items take an optional team, and the
 * memory://team/{team} resources serve a team's memory. Only members reach a team; anyone else (an admin
 * who is not a member, a token of another workspace) gets the same not_found as GET /teams/:team/memory.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE, teamKey, userKey } from "../src/domain/workspaces";
import { newUserId, READ_WRITE, tokenFor } from "./support/auth";
import { item } from "./support/items";
import {
  CLIENT_KINDS,
  type ClientKind,
  connectClient,
  type McpTestClient,
  settledWorkerFetch,
} from "./support/mcp-clients";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  hoursAgo,
  installAgent,
  seedMemory,
  statement,
} from "./support/memory-agent";
import { registerMembersIn } from "./support/workspaces";

const subjects: string[] = [];
const clients: McpTestClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const key of subjects.splice(0)) await clearAlarm(key);
});

const newWorkspace = () => `ws-${crypto.randomUUID()}`;
const newTeamId = () => `t-${crypto.randomUUID()}`;

/** A token in `workspace` (the default workspace's tokens carry no workspace claim). */
const tokenIn = (workspace: string, userId: string, scopes: readonly string[] = READ_WRITE) =>
  tokenFor(userId, scopes, workspace === DEFAULT_WORKSPACE ? {} : { org_id: workspace });

/** Gives the subject's agent a fake generator and a clock a year ahead (its alarms run only when told). */
async function withAgent(key: string): Promise<string> {
  subjects.push(key);
  await installAgent(key, new FakeGenerator());
  return key;
}

/** Users registered as members of the workspace, each with an agent that never runs by itself. */
async function members(workspace: string, ...labels: string[]): Promise<string[]> {
  const ids = labels.map((label) => newUserId(label));
  await registerMembersIn(workspace, ...ids);
  for (const id of ids) await withAgent(userKey(workspace, id));
  return ids;
}

async function api(
  workspace: string,
  userId: string,
  method: string,
  path: string,
  body?: unknown,
  scopes: readonly string[] = READ_WRITE,
): Promise<Response> {
  const headers = {
    authorization: `Bearer ${await tokenIn(workspace, userId, scopes)}`,
    "content-type": "application/json",
  };
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  return settledWorkerFetch(new Request(`http://local${path}`, init));
}

/** PUT /teams/:team as an admin of the workspace; the team's agent is installed first. */
async function createTeam(workspace: string, teamId: string, memberIds: string[]): Promise<string> {
  const key = await withAgent(teamKey(workspace, teamId));
  const admin = newUserId("admin");
  const res = await api(workspace, admin, "PUT", `/teams/${teamId}`, { name: teamId, members: memberIds }, [
    "admin",
  ]);
  expect(res.status).toBe(201);
  return key;
}

/** POST /items as the user; the ids in order. */
async function ingest(workspace: string, userId: string, items: unknown[]): Promise<string[]> {
  const res = await api(workspace, userId, "POST", "/items", { items });
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { items: { id: string }[] }).items.map((i) => i.id);
}

async function clientFor(
  workspace: string,
  userId: string,
  kind: ClientKind = "modern",
  scopes: readonly string[] = READ_WRITE,
): Promise<McpTestClient> {
  const client = await connectClient(kind, { token: await tokenIn(workspace, userId, scopes) });
  clients.push(client);
  return client;
}

const hitIds = (result: { structuredContent?: Record<string, unknown> }) =>
  ((result.structuredContent?.items ?? []) as { id: string }[]).map((h) => h.id).sort();

const TEAM_NOT_FOUND = { error: { code: "not_found", message: "Team not found" } };

describe.each(CLIENT_KINDS)("a team's memory through the %s client", (kind) => {
  it("a member reads it with get_memory and memory://team/{team}; a non-member gets HTTP's 404 as not_found", async () => {
    const ws = newWorkspace();
    const [ada, bob] = await members(ws, "ada", "bob");
    const team = newTeamId();
    const key = await createTeam(ws, team, [ada!]);
    const [plan] = await ingest(ws, ada!, [
      item({ externalId: "plan", title: "Payments plan", sharedWith: [`team:${team}`] }),
    ]);
    const version = await seedMemory(key, [statement("Current projects", "Migrates the ledger", plan!)], {
      generatedAt: hoursAgo(1),
    });

    const member = await clientFor(ws, ada!, kind);
    const read = await member.callTool("get_memory", { team, format: "json" });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toMatchObject({
      status: "ready",
      version,
      statements: [{ section: "Current projects", text: "Migrates the ledger", citations: [{ id: plan }] }],
    });
    // The `team:` form that sharedWith uses names the same team.
    const prefixed = await member.callTool("get_memory", { team: `team:${team}` });
    expect(prefixed.structuredContent).toMatchObject({ status: "ready", version });
    const own = await member.callTool("get_memory", {});
    expect(JSON.stringify(own.structuredContent)).not.toContain("Migrates the ledger");

    const resource = await member.readResource(`memory://team/${team}`);
    expect(resource.contents[0]!.text).toContain("Migrates the ledger [1]");
    expect((await member.listResources()).resources.map((r) => r.uri).sort()).toEqual(
      ["memory://me", `memory://team/${team}`].sort(),
    );

    const outsider = await clientFor(ws, bob!, kind);
    const http = await api(ws, bob!, "GET", `/teams/${team}/memory`);
    expect(http.status).toBe(404);
    const httpError = ((await http.json()) as { error: { code: string; message: string } }).error;
    for (const tool of ["get_memory", "refresh_memory", "search_items"]) {
      const refused = await outsider.callTool(tool, { team });
      expect(refused.isError, tool).toBe(true);
      expect(refused.structuredContent, tool).toEqual(TEAM_NOT_FOUND);
      expect(refused.structuredContent, tool).toEqual({
        error: { code: httpError.code, message: httpError.message },
      });
    }
    await expect(outsider.readResource(`memory://team/${team}`)).rejects.toThrow(/not found/i);
    expect((await outsider.listResources()).resources.map((r) => r.uri)).toEqual(["memory://me"]);
  });
});

describe("the team argument", () => {
  it("is not_found for a team that does not exist, an invalid id, and an admin who is not a member", async () => {
    const ws = newWorkspace();
    const [ada] = await members(ws, "ada");
    const team = newTeamId();
    await createTeam(ws, team, [ada!]);
    const admin = newUserId("admin");
    const asAdmin = await clientFor(ws, admin, "modern", ["admin"]);
    // The admin manages the team (GET /teams/:team answers them) but is not a member of its memory.
    expect((await api(ws, admin, "GET", `/teams/${team}`, undefined, ["admin"])).status).toBe(200);
    expect((await asAdmin.callTool("get_memory", { team })).structuredContent).toEqual(TEAM_NOT_FOUND);

    const member = await clientFor(ws, ada!);
    for (const other of [newTeamId(), "../x", "team:", "Ω"]) {
      const result = await member.callTool("get_memory", { team: other });
      expect(result.structuredContent, other).toEqual(TEAM_NOT_FOUND);
    }
  });

  it("refresh_memory with a team asks the team's agent for a run, and leaves the caller's alone", async () => {
    const ws = newWorkspace();
    const [ada] = await members(ws, "ada");
    const team = newTeamId();
    const key = await createTeam(ws, team, [ada!]);
    const own = userKey(ws, ada!);
    expect((await agentStub(key).status()).phase).toBe("idle");
    const ownBefore = await agentStub(own).status();

    const client = await clientFor(ws, ada!);
    const answer = await client.callTool("refresh_memory", { team });
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ status: "scheduled", runAt: expect.any(String) });
    const teamAgent = await agentStub(key).status();
    expect(teamAgent).toMatchObject({ phase: "scheduled", nextRunAt: answer.structuredContent?.runAt });
    expect(await agentStub(own).status()).toEqual(ownBefore);
  });

  it("search_items with a team finds only what is shared with that team, never a member's private item", async () => {
    const ws = newWorkspace();
    const [ada, bob, cy] = await members(ws, "ada", "bob", "cy");
    const team = newTeamId();
    const otherTeam = newTeamId();
    await createTeam(ws, team, [ada!, bob!]);
    await createTeam(ws, otherTeam, [ada!]);
    const [adaPrivate, teamShared, otherTeamShared, directToAda] = await ingest(ws, ada!, [
      item({ externalId: "p", body: "quokka: ada's private note" }),
      item({ externalId: "t", body: "quokka: the team's plan", sharedWith: [`team:${team}`] }),
      item({ externalId: "o", body: "quokka: the other team's plan", sharedWith: [`team:${otherTeam}`] }),
      item({ externalId: "d", body: "quokka: shared with bob alone", sharedWith: [bob!] }),
    ]);
    const [bobPrivate, fromCy] = [
      ...(await ingest(ws, bob!, [item({ externalId: "p", body: "quokka: bob's private note" })])),
      ...(await ingest(ws, cy!, [
        item({ externalId: "c", body: "quokka: cy shares with the team", sharedWith: [`team:${team}`] }),
      ])),
    ];

    for (const memberId of [ada!, bob!]) {
      const client = await clientFor(ws, memberId);
      const asTeam = await client.callTool("search_items", { query: "quokka", team });
      expect(asTeam.isError).toBeFalsy();
      expect(hitIds(asTeam)).toEqual([teamShared!, fromCy!].sort());
    }
    // The same caller without a team sees their own view: private items and direct shares too.
    const ada1 = await clientFor(ws, ada!);
    expect(hitIds(await ada1.callTool("search_items", { query: "quokka" }))).toEqual(
      [adaPrivate!, teamShared!, otherTeamShared!, directToAda!, fromCy!].sort(),
    );
    const bob1 = await clientFor(ws, bob!);
    expect(hitIds(await bob1.callTool("search_items", { query: "quokka" }))).toEqual(
      [bobPrivate!, teamShared!, directToAda!, fromCy!].sort(),
    );
  });
});

describe("another workspace", () => {
  it("sees nothing of a team's memory or items, even with the same user id and the same team id", async () => {
    const [wsA, wsB] = [newWorkspace(), newWorkspace()];
    const [ada] = await members(wsA, "ada");
    await registerMembersIn(wsB, ada!);
    await withAgent(userKey(wsB, ada!));
    const team = newTeamId();
    const keyA = await createTeam(wsA, team, [ada!]);
    const [secret] = await ingest(wsA, ada!, [
      item({ externalId: "s", body: "quokka: workspace A's plan", sharedWith: [`team:${team}`] }),
    ]);
    await seedMemory(keyA, [statement("Decisions", "Workspace A chose the quokka plan", secret!)], {
      generatedAt: hoursAgo(1),
    });

    // The same user id with a token of workspace B: the team does not exist there.
    const inB = await clientFor(wsB, ada!);
    for (const tool of ["get_memory", "refresh_memory", "search_items"]) {
      expect((await inB.callTool(tool, { team })).structuredContent, tool).toEqual(TEAM_NOT_FOUND);
    }
    await expect(inB.readResource(`memory://team/${team}`)).rejects.toThrow(/not found/i);
    expect(hitIds(await inB.callTool("search_items", { query: "quokka" }))).toEqual([]);
    const foreign = await inB.callTool("get_item", { id: secret! });
    expect(foreign.structuredContent).toEqual({ error: { code: "not_found", message: "Item not found" } });

    // Workspace B makes a team with the same id: it is B's own, empty, and still nothing of A's shows.
    await createTeam(wsB, team, [ada!]);
    const memoryB = await inB.callTool("get_memory", { team });
    expect(memoryB.isError).toBeFalsy();
    expect(memoryB.structuredContent).toMatchObject({ status: "empty" });
    expect(JSON.stringify(memoryB.structuredContent)).not.toContain("quokka");
    expect(hitIds(await inB.callTool("search_items", { query: "quokka", team }))).toEqual([]);
    const resourceB = await inB.readResource(`memory://team/${team}`);
    expect(resourceB.contents[0]!.text).not.toContain("quokka");

    // And workspace A's member still reads A's team memory.
    const inA = await clientFor(wsA, ada!);
    const memoryA = await inA.callTool("get_memory", { team });
    expect(memoryA.structuredContent?.memory).toContain("Workspace A chose the quokka plan");
  });
});
