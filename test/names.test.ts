/**
 * One rule for names (domain/workspaces.ts nameProblem): a token's `sub` and workspace claim, a sharedWith
 * target and a team's member list are checked by the same function, and nothing is trimmed. "pia " is not
 * "pia", and " team:crew" is neither a user nor the team crew: each is refused with the reason, over HTTP
 * and MCP, instead of being read as someone else.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { nameProblem, shareTargetProblem, teamKey, userKey } from "../src/domain/workspaces";
import type { Env } from "../src/env";
import worker from "../src/index";
import { READ_WRITE, tokenFor } from "./support/auth";
import { item, warmUpWorker } from "./support/items";
import { connectClient, settledWorkerFetch, type WorkerFetch } from "./support/mcp-clients";
import { clearAlarm } from "./support/memory-agent";
import { registerMembersIn } from "./support/workspaces";

beforeAll(warmUpWorker);
const agents: string[] = [];
afterEach(async () => {
  for (const key of agents.splice(0)) await clearAlarm(key);
});

const ADMIN = [...READ_WRITE, "admin"] as const;
const newWorkspace = () => `names-${crypto.randomUUID().slice(0, 8)}`;

async function send(token: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const ctx = createExecutionContext();
  const request = new Request(`http://local${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const tokenIn = (workspace: string, sub: string, scopes: readonly string[] = READ_WRITE) =>
  tokenFor(sub, scopes, { org_id: workspace });

const errorOf = async (res: Response) =>
  ((await res.json()) as { error: { code: string; message: string; details?: unknown } }).error;

describe("the name rule", () => {
  it("is one function for users, teams and share targets, and trims nothing", () => {
    expect(nameProblem("pia", "user")).toBeNull();
    expect(nameProblem("pia smith", "user")).toBeNull();
    expect(nameProblem("pia ", "user")).toBe("must not start or end with whitespace");
    expect(nameProblem(" team:crew", "user")).toBe("must not start or end with whitespace");
    expect(nameProblem("team:crew", "user")).toBe('must not start with "team:", which names a team');
    expect(nameProblem("erased:0123", "user")).toBe(
      'must not start with "erased:", which names an erased user',
    );
    expect(nameProblem("crew", "team")).toBeNull();
    expect(nameProblem(" crew", "team")).toBe("must not start or end with whitespace");
    expect(nameProblem(" acme", "workspace")).toBe("must not start or end with whitespace");
    expect(shareTargetProblem("team:crew")).toBeNull();
    expect(shareTargetProblem("team: crew")).toBe("must not start or end with whitespace");
    expect(shareTargetProblem("pia ")).toBe("must not start or end with whitespace");
  });
});

describe("a token whose sub or workspace is not a usable name", () => {
  it.each([
    ["pia ", "must not start or end with whitespace"],
    [" team:crew", "must not start or end with whitespace"],
    ["team:crew", 'must not start with "team:", which names a team'],
    ["erased:0123abcd", 'must not start with "erased:", which names an erased user'],
  ])('is a 401 over HTTP for sub "%s", saying why', async (sub, why) => {
    const ws = newWorkspace();
    await registerMembersIn(ws, "pia");
    const res = await send(await tokenIn(ws, sub), "GET", "/items");
    expect(res.status).toBe(401);
    const error = await errorOf(res);
    expect(error.code).toBe("unauthorized");
    expect(error.message).toBe(`Token has no usable subject: its "sub" ${why}`);
  });

  it("is a 401 for a workspace claim with surrounding whitespace", async () => {
    const res = await send(await tokenIn(" acme", "pia"), "GET", "/items");
    expect(res.status).toBe(401);
    expect((await errorOf(res)).message).toBe(
      `Token's "org_id" claim is not a usable workspace id: it must not start or end with whitespace`,
    );
  });

  it('is a 401 over MCP for "pia " and " team:crew", while "pia" is served', async () => {
    const ws = newWorkspace();
    for (const sub of ["pia ", " team:crew"]) {
      const seen: { status: number; body: string }[] = [];
      const fetch: WorkerFetch = async (request) => {
        const res = await settledWorkerFetch(request);
        seen.push({ status: res.status, body: await res.clone().text() });
        return res;
      };
      await expect(connectClient("modern", { token: await tokenIn(ws, sub), fetch })).rejects.toThrow();
      expect(seen[0]!.status, sub).toBe(401);
      expect(JSON.parse(seen[0]!.body).error.message).toBe(
        `Token has no usable subject: its "sub" must not start or end with whitespace`,
      );
    }
    const pia = await connectClient("modern", { token: await tokenIn(ws, "pia") });
    expect((await pia.callTool("search_items", {})).isError).toBeFalsy();
    await pia.close();
  });
});

describe("a sharedWith target with surrounding whitespace", () => {
  it('is a 422 naming "pia " and " team:crew", though pia and the team crew exist, and writes nothing', async () => {
    const ws = newWorkspace();
    await registerMembersIn(ws, "ada", "pia");
    const admin = await tokenIn(ws, "ada", ADMIN);
    expect((await send(admin, "PUT", "/teams/crew", { name: "Crew", members: ["pia"] })).status).toBe(201);

    const res = await send(admin, "POST", "/items", {
      items: [
        item({ externalId: "w", title: "Whitespace", sharedWith: ["pia ", " team:crew", "team: crew"] }),
      ],
    });
    expect(res.status).toBe(422);
    const error = await errorOf(res);
    expect(error.code).toBe("validation_failed");
    expect(error.details).toEqual({
      items: [
        {
          index: 0,
          path: "sharedWith",
          message: '"pia " is not a usable member or team name: it must not start or end with whitespace',
        },
        {
          index: 0,
          path: "sharedWith",
          message:
            '" team:crew" is not a usable member or team name: it must not start or end with whitespace',
        },
        {
          index: 0,
          path: "sharedWith",
          message:
            '"team: crew" is not a usable member or team name: it must not start or end with whitespace',
        },
      ],
    });
    const pia = await tokenIn(ws, "pia");
    expect(((await (await send(pia, "GET", "/items?q=whitespace")).json()) as { items: [] }).items).toEqual(
      [],
    );

    // The names themselves share as they should.
    agents.push(userKey(ws, "pia"), teamKey(ws, "crew"));
    const shared = await send(admin, "POST", "/items", {
      items: [item({ externalId: "n", title: "Named", sharedWith: ["pia", "team:crew"] })],
    });
    expect(shared.status).toBe(200);
    const seen = (await (await send(pia, "GET", "/items?q=named")).json()) as {
      items: { sharedWith?: string[] }[];
    };
    expect(seen.items).toHaveLength(1);
  });

  it("is refused in a team's member list too (422 naming it), and in a member path (400)", async () => {
    const ws = newWorkspace();
    await registerMembersIn(ws, "ada", "pia");
    const admin = await tokenIn(ws, "ada", ADMIN);
    const team = await send(admin, "PUT", "/teams/crew", { name: "Crew", members: ["pia "] });
    expect(team.status).toBe(422);
    expect((await errorOf(team)).message).toBe(
      'members.0 "pia " is not a usable user id: it must not start or end with whitespace',
    );
    const member = await send(admin, "PUT", "/members/pia%20");
    expect(member.status).toBe(400);
    expect((await errorOf(member)).message).toBe(
      '"pia " is not a valid user id: it must not start or end with whitespace',
    );
  });
});
