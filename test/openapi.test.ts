import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createWorkerApp } from "../src/composition";
import { teamKey } from "../src/domain/workspaces";
import * as res from "../src/http/response-schemas";
import { bearer, newUserId, READ_WRITE } from "./support/auth";
import { item, warmUpWorker } from "./support/items";
import { settledWorkerFetch } from "./support/mcp-clients";
import { clearAlarm, FakeGenerator, installAgent } from "./support/memory-agent";
import { validateOpenApi } from "./support/openapi";
import { registerMembers } from "./support/workspaces";

beforeAll(warmUpWorker);

interface Document {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
}

async function served(): Promise<Document> {
  const response = await exports.default.fetch("http://local/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as Document;
}

/** Every method+path the Hono app answers (middleware entries, which end in `*`, left out). */
function appRoutes(): string[] {
  const routes = createWorkerApp()
    .routes.filter((r) => !r.path.endsWith("*"))
    .map((r) => `${r.method === "ALL" ? "POST" : r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
  return [...new Set(routes)].sort();
}

function documentedRoutes(doc: Document): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

/** Calls the worker as `userId` and waits for what it deferred (pokes to the user's agent). */
async function call(
  userId: string,
  method: string,
  path: string,
  body?: unknown,
  scopes: readonly string[] = READ_WRITE,
): Promise<Response> {
  const headers = { ...(await bearer(userId, scopes)), "content-type": "application/json" };
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  return settledWorkerFetch(new Request(`http://local${path}`, init));
}

const parsed = async <T extends z.ZodType>(schema: T, response: Response) =>
  schema.parse(await response.json()) as z.infer<T>;

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document (checked by @seriousme/openapi-schema-validator)", async () => {
    const doc = await served();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "http://local" }]);
    expect(await validateOpenApi(doc)).toEqual({ valid: true, version: "3.1", errors: null });
  });

  it("the validator does refuse a broken document (so the check above can fail)", async () => {
    const doc = await served();
    const broken = { ...doc, paths: { "/items": { get: { responses: "none" } } } };
    expect((await validateOpenApi(broken)).valid).toBe(false);
  });

  it("documents every route the app serves, and nothing else", async () => {
    const routes = appRoutes();
    expect(routes).toContain("POST /mcp");
    expect(routes).toContain("DELETE /items/{id}");
    expect(documentedRoutes(await served())).toEqual(routes);
  });

  it("documents bearer security with the scope of each route, and the error body", async () => {
    const doc = await served();
    expect(doc.paths["/items"]!.post!.security).toEqual([{ bearer: ["items:write"] }]);
    expect(doc.paths["/memory"]!.get!.security).toEqual([{ bearer: ["memory:read"] }]);
    expect(doc.paths["/health"]!.get!.security).toEqual([]);
    expect(doc.paths["/members"]!.get!.security).toEqual([{ bearer: ["admin"] }]);
    expect(doc.paths["/members/{user}"]!.delete!.security).toEqual([{ bearer: ["admin"] }]);
    expect(doc.paths["/teams/{team}"]!.put!.security).toEqual([{ bearer: ["admin"] }]);
    expect(doc.paths["/teams"]!.get!.security).toEqual([{ bearer: [] }]);
    expect(doc.paths["/teams/{team}/memory"]!.get!.security).toEqual([{ bearer: ["memory:read"] }]);
    expect(Object.keys(doc.paths["/teams/{team}/memory/refresh"]!.post!.responses)).toContain("404");
    expect(doc.paths["/items/{id}"]!.get!.responses["404"]).toEqual({
      description: "No such item visible to the caller",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    });
  });

  it("describes the request body with the same schema that validates POST /items", async () => {
    const doc = (await served()) as unknown as {
      paths: {
        "/items": { post: { requestBody: { content: { "application/json": { schema: unknown } } } } };
      };
    };
    const body = doc.paths["/items"].post.requestBody.content["application/json"].schema as {
      properties: {
        items: { maxItems: number; items: { required: string[]; properties: Record<string, unknown> } };
      };
    };
    expect(body.properties.items.maxItems).toBe(500);
    expect(body.properties.items.items.required.sort()).toEqual(
      ["body", "externalId", "kind", "occurredAt", "source"].sort(),
    );
    expect(Object.keys(body.properties.items.items.properties)).toContain("sharedWith");
  });
});

describe("the workspace routes are documented as they behave", () => {
  interface Operation {
    requestBody: { content: { "application/json": { schema: TeamBody } } };
    responses: Record<string, { description: string }>;
  }
  interface TeamBody {
    required: string[];
    properties: { name: { maxLength: number }; members: { maxItems: number } };
  }
  const operation = async (path: string, method: string) =>
    ((await served()) as unknown as { paths: Record<string, Record<string, Operation>> }).paths[path]![
      method
    ]!;

  it("PUT /teams/{team}: the documented bounds are the route's (one past each is a 422)", async () => {
    const put = await operation("/teams/{team}", "put");
    const schema = put.requestBody.content["application/json"].schema;
    expect(schema.required.sort()).toEqual(["members", "name"]);
    const admin = newUserId("admin");
    const team = `t-${crypto.randomUUID()}`;
    const tooLong = "n".repeat(schema.properties.name.maxLength + 1);
    const tooMany = Array.from({ length: schema.properties.members.maxItems + 1 }, (_, i) => `u${i}`);
    for (const body of [
      { name: tooLong, members: [] },
      { name: "ok", members: tooMany },
    ]) {
      const refused = await call(admin, "PUT", `/teams/${team}`, body, ["admin"]);
      expect(refused.status).toBe(422);
    }
    const longest = "n".repeat(schema.properties.name.maxLength);
    const accepted = await call(admin, "PUT", `/teams/${team}`, { name: longest, members: [] }, ["admin"]);
    expect(accepted.status).toBe(201);
    expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(["200", "201", "422", "403"]));
  });

  it("documents sharedWith's team targets, the 422 for unknown ones, and a sharee's leave", async () => {
    const post = await operation("/items", "post");
    const body = post.requestBody.content["application/json"].schema as unknown as {
      properties: { items: { items: { properties: { sharedWith: { description: string } } } } };
    };
    expect(body.properties.items.items.properties.sharedWith.description).toContain("team:payments");
    expect(post.responses["422"]!.description).toMatch(/sharedWith target/);
    const del = await operation("/items/{id}", "delete");
    expect(del.responses["204"]!.description).toMatch(/left/);
    expect(del.responses["403"]!.description).toMatch(/only through a team/);
  });
});

describe("POST /me/ingest-address is documented as it behaves", () => {
  it("takes an optional allowedSenders list and answers the address with its list", async () => {
    const doc = (await served()) as unknown as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody: { required: boolean; content: { "application/json": { schema: unknown } } };
            responses: Record<string, unknown>;
          }
        >
      >;
    };
    const post = doc.paths["/me/ingest-address"]!.post!;
    expect(post.requestBody.required).toBe(false);
    const body = post.requestBody.content["application/json"].schema as {
      properties: { allowedSenders: { type: string; maxItems: number; description: string } };
      additionalProperties: boolean;
    };
    expect(body.properties.allowedSenders).toMatchObject({ type: "array", maxItems: 100 });
    expect(body.properties.allowedSenders.description).toMatch(/@example\.com/);
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(["200", "201", "422"]));

    const me = newUserId("openapi");
    const created = await call(me, "POST", "/me/ingest-address", { allowedSenders: ["@example.com"] });
    expect(created.status).toBe(201);
    expect(await parsed(res.ingestAddressResponse, created)).toMatchObject({
      allowedSenders: ["@example.com"],
    });
    const again = await call(me, "POST", "/me/ingest-address");
    expect(again.status).toBe(200);
    await parsed(res.ingestAddressResponse, again);
    const refused = await call(me, "POST", "/me/ingest-address", { allowedSenders: ["nobody"] });
    expect(refused.status).toBe(422);
    expect((await parsed(res.errorBody, refused)).error.code).toBe("validation_failed");
  });
});

describe("responses match their documented schemas", () => {
  it("for items, the memory states, health and errors", async () => {
    const me = newUserId("openapi");
    await installAgent(me, null);
    try {
      const items = [item({ externalId: "a", links: [{ externalId: "b" }] }), item({ externalId: "b" })];
      const ingested = await parsed(res.ingestResponse, await call(me, "POST", "/items", { items }));
      const a = ingested.items[0];
      await parsed(res.searchResponse, await call(me, "GET", "/items?q=Body&limit=1"));
      await parsed(res.itemResponse, await call(me, "GET", `/items/${a!.id}`));
      await parsed(res.generatingResponse, await call(me, "GET", "/memory"));
      await parsed(res.runsResponse, await call(me, "GET", "/memory/runs"));
      await parsed(res.versionsResponse, await call(me, "GET", "/memory/versions"));
      const missing = await parsed(res.errorBody, await call(me, "GET", `/items/${crypto.randomUUID()}`));
      expect(missing.error.code).toBe("not_found");
      const health = await parsed(res.healthResponse, await exports.default.fetch("http://local/health"));
      // No embedding model here: keyword search only, which a client reads to offer no other mode.
      expect(health.search).toEqual({ modes: ["keyword"], default: "keyword" });
      expect(health.llm).toEqual({ status: "configured", fake: false });
      const refused = await parsed(res.errorBody, await call(me, "POST", "/items", { items: [{}] }));
      expect(refused.error.code).toBe("validation_failed");
    } finally {
      await clearAlarm(me);
    }
  });

  it("for members, teams and a team's memory", async () => {
    const admin = newUserId("admin");
    const [member, added] = [newUserId("member"), newUserId("added")];
    await registerMembers(member);
    const team = `t-${crypto.randomUUID()}`;
    await installAgent(teamKey("default", team), new FakeGenerator());
    try {
      const asAdmin = (method: string, path: string, body?: unknown) =>
        call(admin, method, path, body, ["admin"]);
      const first = await asAdmin("PUT", `/members/${added}`);
      expect(first.status).toBe(201);
      expect((await parsed(res.memberResponse, first)).userId).toBe(added);
      expect((await asAdmin("PUT", `/members/${added}`)).status).toBe(200);
      const listed = await parsed(res.membersResponse, await asAdmin("GET", "/members"));
      expect(listed.members.map((m) => m.userId)).toEqual(expect.arrayContaining([admin, member, added]));
      expect((await asAdmin("DELETE", `/members/${added}`)).status).toBe(204);

      const created = await asAdmin("PUT", `/teams/${team}`, { name: "Payments", members: [member] });
      expect(created.status).toBe(201);
      expect(await parsed(res.teamResponse, created)).toMatchObject({ id: team, members: [member] });
      const unknown = await asAdmin("PUT", `/teams/${team}`, { name: "Payments", members: [added] });
      expect((await parsed(res.errorBody, unknown)).error.code).toBe("validation_failed");
      await parsed(res.teamsResponse, await asAdmin("GET", "/teams"));
      await parsed(res.teamsResponse, await call(member, "GET", "/teams"));
      await parsed(res.teamResponse, await call(member, "GET", `/teams/${team}`));

      const memory = await call(member, "GET", `/teams/${team}/memory`);
      expect(memory.status).toBe(200);
      await parsed(z.union([res.memoryResponse, res.emptyMemoryResponse]), memory);
      await parsed(res.runsResponse, await call(member, "GET", `/teams/${team}/memory/runs`));
      await parsed(res.versionsResponse, await call(member, "GET", `/teams/${team}/memory/versions`));
      const refresh = await call(member, "POST", `/teams/${team}/memory/refresh`);
      expect(refresh.status).toBe(202);
      await parsed(res.refreshResponse, refresh);
      const outsider = await call(admin, "GET", `/teams/${team}/memory`, undefined, ["admin"]);
      expect((await parsed(res.errorBody, outsider)).error.code).toBe("not_found");
      expect((await asAdmin("DELETE", `/teams/${team}`)).status).toBe(204);
    } finally {
      await clearAlarm(teamKey("default", team));
    }
  });
});
