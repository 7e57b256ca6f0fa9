/**
 * DELETE /me also takes the user out of their workspace: out of its members, out of every team and out of
 * every share naming them, in the erase's own write (with the same redaction as any membership change),
 * and their cached admission goes with it. Their token afterwards joins the workspace afresh, as a
 * newcomer: no team, nothing shared, an empty memory.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { teamKey, userKey } from "../src/domain/workspaces";
import type { Env } from "../src/env";
import worker from "../src/index";
import { READ_WRITE, tokenFor } from "./support/auth";
import { item, warmUpWorker } from "./support/items";
import { clearAlarm } from "./support/memory-agent";
import { registerMembersIn } from "./support/workspaces";

beforeAll(warmUpWorker);
const agents: string[] = [];
afterEach(async () => {
  for (const key of agents.splice(0)) await clearAlarm(key);
});

const ADMIN = [...READ_WRITE, "admin"] as const;

async function send(
  workspace: string,
  user: string,
  method: string,
  path: string,
  options: { body?: unknown; scopes?: readonly string[] } = {},
): Promise<Response> {
  const token = await tokenFor(user, options.scopes ?? READ_WRITE, { org_id: workspace });
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const ctx = createExecutionContext();
  const request = new Request(`http://local${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function ok<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

describe("DELETE /me", () => {
  it("removes the user from the workspace's members, every team and every share; their token then joins afresh", async () => {
    const ws = `erase-${crypto.randomUUID().slice(0, 8)}`;
    await registerMembersIn(ws, "root", "ada", "pia");
    agents.push(userKey(ws, "ada"), userKey(ws, "pia"), teamKey(ws, "crew"));
    const admin = (method: string, path: string, body?: unknown) =>
      send(ws, "root", method, path, { body, scopes: ADMIN });
    await ok(await admin("PUT", "/teams/crew", { name: "Crew", members: ["ada", "pia"] }), 201);
    const [direct, viaTeam] = (
      await ok<{ items: { id: string }[] }>(
        await send(ws, "ada", "POST", "/items", {
          body: {
            items: [
              item({ externalId: "direct", title: "Pelican direct", sharedWith: ["pia"] }),
              item({ externalId: "team", title: "Pelican team", sharedWith: ["team:crew"] }),
            ],
          },
        }),
      )
    ).items.map((i) => i.id);
    // pia reads (filling her cached admission, with her team) and sees both.
    expect(
      (await ok<{ items: unknown[] }>(await send(ws, "pia", "GET", "/items?q=pelican"))).items,
    ).toHaveLength(2);
    expect((await send(ws, "pia", "GET", "/teams/crew")).status).toBe(200);

    expect((await send(ws, "pia", "DELETE", "/me")).status).toBe(204);

    const members = await ok<{ members: { userId: string }[] }>(await admin("GET", "/members"));
    expect(members.members.map((m) => m.userId)).toEqual(["ada", "root"]);
    expect((await ok<{ members: string[] }>(await admin("GET", "/teams/crew"))).members).toEqual(["ada"]);
    const shared = await ok<{ sharedWith: string[] }>(await send(ws, "ada", "GET", `/items/${direct}`));
    expect(shared.sharedWith).toEqual([]);
    expect(
      (await ok<{ sharedWith: string[] }>(await send(ws, "ada", "GET", `/items/${viaTeam}`))).sharedWith,
    ).toEqual(["team:crew"]);

    // Her token now acts as a newcomer's: no team, nothing shared, nothing to remember.
    expect((await send(ws, "pia", "GET", "/teams/crew")).status).toBe(404);
    expect((await send(ws, "pia", "GET", "/teams/crew/memory")).status).toBe(404);
    expect((await ok<{ teams: unknown[] }>(await send(ws, "pia", "GET", "/teams"))).teams).toEqual([]);
    expect((await ok<{ items: unknown[] }>(await send(ws, "pia", "GET", "/items?q=pelican"))).items).toEqual(
      [],
    );
    expect((await ok<{ empty: boolean }>(await send(ws, "pia", "GET", "/memory"))).empty).toBe(true);
    const after = await ok<{ members: { userId: string; removedAt: string | null }[] }>(
      await admin("GET", "/members"),
    );
    expect(after.members.map((m) => [m.userId, m.removedAt])).toEqual([
      ["ada", null],
      ["pia", null],
      ["root", null],
    ]);
  });
});
