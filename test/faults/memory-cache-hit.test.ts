/**
 * A cache hit makes no database round trip: with the database cut off by the fault proxy, cached memories
 * (personal and team) are still served with their ETag, 304 and JSON form, to members whose admission is
 * cached, through the HTTP API and MCP; while anything that needs the database answers 503.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { teamKey, userKey } from "../../src/domain/workspaces";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { READ_WRITE, tokenFor } from "../support/auth";
import { item, warmUpWorker } from "../support/items";
import { connectClient } from "../support/mcp-clients";
import { clearAlarm, FakeGenerator, installAgent, runAlarm, statement } from "../support/memory-agent";
import { registerMembersIn } from "../support/workspaces";

async function setDatabase(mode: "up" | "down"): Promise<void> {
  const res = await fetch(`${String(env.FAULT_PROXY_URL)}/mode/${mode}`, { method: "PUT" });
  expect(res.status).toBe(200);
}

const agents: string[] = [];
beforeAll(async () => {
  await setDatabase("up");
  await warmUpWorker();
});
afterEach(async () => {
  await setDatabase("up");
  for (const key of agents.splice(0)) await clearAlarm(key);
});

describe("with the database down", () => {
  it("serves cached memories (personal and team) to cached members, and 503 for everything else", async () => {
    const ws = `cache-hit-${crypto.randomUUID().slice(0, 8)}`;
    const call = async (user: string, method: string, path: string, init: RequestInit = {}) => {
      const scopes = user === "root" ? [...READ_WRITE, "admin"] : READ_WRITE;
      const token = await tokenFor(user, scopes, { org_id: ws });
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const request = new Request(`http://local${path}`, {
        ...init,
        method,
        headers: { ...headers, ...(init.headers as Record<string, string>) },
      });
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        request as Request<unknown, IncomingRequestCfProperties>,
        env as Env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    const send = (user: string, method: string, path: string, headers: Record<string, string> = {}) =>
      call(user, method, path, { headers });
    const post = (user: string, method: string, path: string, body: unknown) =>
      call(user, method, path, { body: JSON.stringify(body) });

    // Set up with the database up: a team, items, and both memories made by their agents (so cached).
    await registerMembersIn(ws, "ada", "ben", "cy");
    expect(
      (await post("root", "PUT", "/teams/kestrel", { name: "Kestrel", members: ["ada", "ben"] })).status,
    ).toBe(201);
    const ingested = await post("ada", "POST", "/items", {
      items: [item({ externalId: "t", sharedWith: ["team:kestrel"] }), item({ externalId: "r" })],
    });
    const [t, r] = ((await ingested.json()) as { items: { id: string }[] }).items.map((i) => i.id);
    const ada = userKey(ws, "ada");
    const team = teamKey(ws, "kestrel");
    for (const [subject, reader, path, say] of [
      [ada, "ada", "/memory", [statement("Work", "Own fact", r!)]],
      [team, "ben", "/teams/kestrel/memory", [statement("Projects", "Kestrel ships in May", t!)]],
    ] as const) {
      await installAgent(subject, new FakeGenerator({ kind: "accept", statements: [...say] }));
      agents.push(subject);
      expect((await send(reader, "GET", path)).status).toBe(202);
      expect(await runAlarm(subject)).toBe(true);
    }
    const before = await send("ada", "GET", "/memory");
    expect(before.status).toBe(200);
    const etag = before.headers.get("etag")!;
    const body = await before.json();
    const teamBefore = await (await send("ben", "GET", "/teams/kestrel/memory")).json();
    expect((await send("cy", "GET", "/items")).status).toBe(200); // cy is admitted (and cached), no memory

    await setDatabase("down");

    const hit = await send("ada", "GET", "/memory");
    expect(hit.status).toBe(200);
    expect(hit.headers.get("etag")).toBe(etag);
    expect(await hit.json()).toEqual(body);
    expect((await send("ada", "GET", "/memory", { "if-none-match": etag })).status).toBe(304);
    const json = await send("ada", "GET", "/memory?format=json");
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({ statements: [{ text: "Own fact" }] });
    const teamHit = await send("ben", "GET", "/teams/kestrel/memory");
    expect(teamHit.status).toBe(200);
    expect(await teamHit.json()).toEqual(teamBefore);
    expect((await send("ada", "GET", "/teams/kestrel/memory")).status).toBe(200);
    // Membership is answered from the cache too: cy is not in the team (404, not 503).
    expect((await send("cy", "GET", "/teams/kestrel/memory")).status).toBe(404);

    const client = await connectClient("modern", {
      token: await tokenFor("ada", READ_WRITE, { org_id: ws }),
    });
    try {
      const tool = await client.callTool("get_memory", {});
      expect(tool.structuredContent).toMatchObject({ status: "ready", memory: "## Work\n- Own fact [1]" });
    } finally {
      await client.close();
    }

    // The database really is down: a miss (cy has no cached memory), and the history, answer 503.
    const miss = await send("cy", "GET", "/memory");
    expect(miss.status).toBe(503);
    expect(await miss.json()).toMatchObject({ error: { code: "database_unavailable" } });
    expect((await send("ada", "GET", "/memory/runs")).status).toBe(503);
  });
});
