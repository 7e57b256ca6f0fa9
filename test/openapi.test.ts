import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { createApp } from "../src/http/app";
import * as res from "../src/http/response-schemas";
import { bearer, newUserId } from "./support/auth";
import { item, warmUpWorker } from "./support/items";
import { settledWorkerFetch } from "./support/mcp-clients";
import { clearAlarm, installAgent } from "./support/memory-agent";
import { validateOpenApi } from "./support/openapi";

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
  const routes = createApp()
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
async function call(userId: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers = { ...(await bearer(userId)), "content-type": "application/json" };
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
      await parsed(res.healthResponse, await exports.default.fetch("http://local/health"));
      const refused = await parsed(res.errorBody, await call(me, "POST", "/items", { items: [{}] }));
      expect(refused.error.code).toBe("validation_failed");
    } finally {
      await clearAlarm(me);
    }
  });
});
