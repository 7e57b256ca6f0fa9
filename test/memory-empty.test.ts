/** A subject who can see no item: nothing to remember, so no run, no LLM call, and a clear answer. */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { newUserId } from "./support/auth";
import { call, ingest, item, json, warmUpWorker } from "./support/items";
import { registerMembers } from "./support/workspaces";

beforeAll(warmUpWorker);

const agentOf = (userId: string) => env.MEMORY_AGENT.get(env.MEMORY_AGENT.idFromName(`user:${userId}`));

describe("GET /memory for a subject who can see no item", () => {
  it("answers 200 with an empty memory and asks for no run", async () => {
    const user = newUserId();
    const res = await call(user, "GET", "/memory");
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeNull();
    expect(await res.json()).toEqual({
      memory: "",
      version: null,
      generatedAt: null,
      stale: false,
      empty: true,
      citations: [],
    });
    expect((await agentOf(user).status()).phase).toBe("idle");
    const runs = await json<{ runs: unknown[] }>(await call(user, "GET", "/memory/runs"));
    expect(runs.runs).toEqual([]);
  });

  it("answers the json format with no statements", async () => {
    const res = await call(newUserId(), "GET", "/memory?format=json");
    expect(await res.json()).toEqual({
      version: null,
      generatedAt: null,
      stale: false,
      empty: true,
      statements: [],
      citations: [],
    });
  });

  it("counts items shared with the subject: then a first memory is asked for", async () => {
    const owner = newUserId();
    const sharee = newUserId("sharee");
    await registerMembers(sharee);
    await ingest(owner, [item({ externalId: "shared", sharedWith: [sharee] })]);
    const res = await call(sharee, "GET", "/memory");
    expect(res.status).toBe(202);
  });
});
