/**
 * A team's memory end to end through the whole worker, with the fake LLM's reference generator and judge
 * behind the real SDK adapters: the team's own MemoryAgent, research scoped to what is shared with the
 * team, read by members only.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { demoWorkspace } from "../fixtures/demo-workspace";
import { endUserIdOf } from "../src/agent/end-user";
import { TEAM_SECTIONS } from "../src/agent/wire-format";
import { teamKey, userKey } from "../src/domain/workspaces";
import type { Env } from "../src/env";
import worker from "../src/index";
import { READ_WRITE, tokenFor } from "./support/auth";
import { fakeLlm } from "./support/fake-llm-control";
import { item, warmUpWorker } from "./support/items";
import { clearAlarm, futureClock, installAgent, overrideAgentOf, runAlarm } from "./support/memory-agent";
import { registerMembersIn } from "./support/workspaces";

const llm = fakeLlm();
const agents: string[] = [];
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const key of agents.splice(0)) await clearAlarm(key);
});

async function send(
  ws: string,
  user: string,
  method: string,
  path: string,
  body?: unknown,
  scopes: readonly string[] = READ_WRITE,
) {
  const token = await tokenFor(user, scopes, { org_id: ws });
  const ctx = createExecutionContext();
  const request = new Request(`http://local${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("team memory end to end", () => {
  it("is generated from team-shared items only, read by members, and 404 for everyone else", async () => {
    const ws = `team-e2e-${crypto.randomUUID().slice(0, 8)}`;
    const team = teamKey(ws, "kestrel");
    agents.push(team, userKey(ws, "ada"), userKey(ws, "ben"));
    overrideAgentOf(team, { clock: futureClock() });
    await installAgent(userKey(ws, "ada"), null);
    await registerMembersIn(ws, "ada", "ben", "carl");
    const admin = await send(
      ws,
      "root",
      "PUT",
      "/teams/kestrel",
      { name: "Kestrel", members: ["ada", "ben"] },
      [...READ_WRITE, "admin"],
    );
    expect(admin.status).toBe(201);

    // Ada's demo workspace, shared with the team; plus one private item the team must never see.
    const shared = demoWorkspace(new Date()).itemsByOwner.ada.map((i) => ({
      ...i,
      sharedWith: ["team:kestrel"],
    }));
    for (let i = 0; i < shared.length; i += 100) {
      const res = await send(ws, "ada", "POST", "/items", { items: shared.slice(i, i + 100) });
      expect(res.status).toBe(200);
    }
    const privateRes = await send(ws, "ada", "POST", "/items", {
      items: [
        item({ externalId: "private", title: "Zanzibar bonus", body: "Ada's Zanzibar bonus is private." }),
      ],
    });
    const [privateItem] = ((await privateRes.json()) as { items: { id: string }[] }).items;

    expect((await send(ws, "ben", "GET", "/teams/kestrel/memory")).status).toBe(202);
    expect(await runAlarm(team)).toBe(true);
    const res = await send(ws, "ben", "GET", "/teams/kestrel/memory");
    expect(res.status).toBe(200);
    const memory = (await res.json()) as { memory: string; version: string; citations: { id: string }[] };
    expect(memory.citations.length).toBeGreaterThan(0);
    expect(memory.memory).not.toMatch(/zanzibar/i);
    const headings = [...memory.memory.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings.length).toBeGreaterThan(0);
    for (const heading of headings) expect(TEAM_SECTIONS as readonly string[]).toContain(heading);
    expect(memory.citations.map((c) => c.id)).not.toContain(privateItem!.id);
    const sharedIds = new Set<string>();
    for (let page = 0, cursor = ""; page < 10; page++) {
      const list = await send(ws, "ben", "GET", `/items?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
      const body = (await list.json()) as { items: { id: string }[]; nextCursor: string | null };
      for (const i of body.items) sharedIds.add(i.id);
      if (!body.nextCursor) break;
      cursor = encodeURIComponent(body.nextCursor);
    }
    for (const c of memory.citations) expect(sharedIds.has(c.id)).toBe(true);

    // The run was the team's: its prompt asked for a team's sections and named no workspace.
    const requests = await llm.requests(await endUserIdOf(team), { role: "generator" });
    expect(requests.length).toBeGreaterThan(0);
    const system = requests[0]!.neutral!.system;
    for (const section of TEAM_SECTIONS) expect(system).toContain(section);
    expect(JSON.stringify(requests[0]!.body)).not.toContain(ws);
    for (const r of requests) expect(JSON.stringify(r.response)).not.toMatch(/zanzibar/i);

    // Members read the history; a member of the workspace outside the team, and other workspaces, get 404.
    expect((await send(ws, "ada", "GET", "/teams/kestrel/memory/versions")).status).toBe(200);
    expect((await send(ws, "ada", "GET", "/teams/kestrel/memory/runs")).status).toBe(200);
    for (const path of ["", "/runs", "/versions", `/versions/${memory.version}`]) {
      expect((await send(ws, "carl", "GET", `/teams/kestrel/memory${path}`)).status).toBe(404);
      expect((await send(`${ws}-other`, "ben", "GET", `/teams/kestrel/memory${path}`)).status).toBe(404);
    }
    expect((await send(ws, "carl", "POST", "/teams/kestrel/memory/refresh")).status).toBe(404);
    expect((await send(ws, "carl", "GET", "/teams/kestrel")).status).toBe(404);
    expect((await send(ws, "ben", "GET", "/teams/kestrel")).status).toBe(200);
  });
});
