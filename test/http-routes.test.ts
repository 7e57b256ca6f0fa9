/**
 * What a path is: a trailing slash is the same route, for the router and for the 405s' Allow alike (every
 * route the app serves, listed from its own route table); and cross-origin calls (CORS) for the origins
 * CORS_ALLOWED_ORIGINS names, with /mcp also needing MCP_ALLOWED_ORIGINS.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createWorkerApp } from "../src/composition";
import type { Env } from "../src/env";
import worker from "../src/index";
import { newUserId, tokenFor } from "./support/auth";
import { warmUpWorker } from "./support/items";
import { connectClient, type WorkerFetch } from "./support/mcp-clients";

beforeAll(warmUpWorker);

/** The worker with extra settings (a fresh env object is parsed afresh). */
async function fetchWith(settings: Record<string, string>, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const patched = { ...(env as Env), ...settings } as Env;
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, patched, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const SAMPLE_PARAMS: Record<string, string> = {
  id: "00000000-0000-4000-8000-000000000000",
  user: "someone",
  team: "crew",
};

/** Every (method, concrete path) the app routes, from its own table (middleware entries left out). */
function everyRoute(): { method: string; path: string }[] {
  const seen = new Set<string>();
  return createWorkerApp()
    .routes.filter((r) => !r.path.endsWith("*"))
    .map((r) => ({
      method: r.method === "ALL" ? "POST" : r.method,
      path: r.path.replace(/:(\w+)/g, (_, name: string) => SAMPLE_PARAMS[name] ?? "x"),
    }))
    .filter((r) => {
      const key = `${r.method} ${r.path}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** The answer to an unauthenticated request, or to one with a token of a fresh user. */
const answer = async (method: string, path: string, authenticated = false) => {
  const headers: Record<string, string> = authenticated
    ? { authorization: `Bearer ${await tokenFor(newUserId("routes"))}` }
    : {};
  const res = await fetchWith({}, new Request(`http://local${path}`, { method, headers }));
  const body = await res.text();
  return { status: res.status, allow: res.headers.get("allow"), body };
};

describe("a trailing slash", () => {
  it("lists the routes it checks from the app itself", () => {
    const routes = everyRoute().map((r) => `${r.method} ${r.path}`);
    expect(routes).toContain("GET /items");
    expect(routes).toContain("DELETE /items/00000000-0000-4000-8000-000000000000");
    expect(routes).toContain("POST /mcp");
    expect(routes.length).toBeGreaterThan(20);
  });

  it("is the same route for every route of the app: same answer, never a 404 or a 405", async () => {
    for (const { method, path } of everyRoute()) {
      const bare = await answer(method, path);
      const slashed = await answer(method, `${path}/`);
      expect(slashed.status, `${method} ${path}/`).toBe(bare.status);
      expect(slashed.status, `${method} ${path}/ (${slashed.body})`).not.toBe(405);
      if (!path.startsWith("/.well-known")) expect(slashed.status, `${method} ${path}/`).not.toBe(404);
    }
  });

  it("gives a known path asked with another method the same 405 and Allow with or without it", async () => {
    for (const [method, path, allow] of [
      ["PUT", "/items", "GET, HEAD, POST"],
      ["PATCH", "/items/00000000-0000-4000-8000-000000000000", "DELETE, GET, HEAD"],
      ["POST", "/memory", "GET, HEAD"],
      ["GET", "/me", "DELETE"],
      ["DELETE", "/memory/versions", "GET, HEAD"],
    ] as const) {
      for (const p of [path, `${path}/`]) {
        const res = await answer(method, p, true);
        expect(res.status, `${method} ${p}`).toBe(405);
        expect(res.allow, `${method} ${p}`).toBe(allow);
      }
    }
  });

  it("is refused as an unknown path when doubled, by the router and the Allow table alike", async () => {
    for (const path of ["/items//", "/memory//", "/nowhere/"]) {
      const res = await answer("GET", path, true);
      expect(res.status, path).toBe(404);
      expect(res.allow, path).toBeNull();
    }
  });
});

const APP = "https://app.example";
const CORS = { CORS_ALLOWED_ORIGINS: `${APP}, http://localhost:5173` };

const preflight = (path: string, origin: string, method = "POST", settings: Record<string, string> = CORS) =>
  fetchWith(
    settings,
    new Request(`http://local${path}`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": method,
        "access-control-request-headers": "authorization, content-type",
      },
    }),
  );

describe("cross-origin calls", () => {
  it("answer an allowed origin's preflight with the path's methods and the requested headers", async () => {
    for (const path of ["/items", "/items/", "/memory/refresh"]) {
      const res = await preflight(path, APP);
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(APP);
      expect(res.headers.get("access-control-allow-methods")).toBe(
        path === "/memory/refresh" ? "POST" : "GET,HEAD,POST",
      );
      expect(res.headers.get("access-control-allow-headers")).toBe("authorization,content-type");
      expect(res.headers.get("access-control-max-age")).toBe("600");
      expect(res.headers.get("vary")).toContain("Origin");
    }
  });

  it("let an allowed origin read the answer and its headers", async () => {
    const token = await tokenFor(newUserId("cors"));
    const res = await fetchWith(
      CORS,
      new Request("http://local/items", { headers: { origin: APP, authorization: `Bearer ${token}` } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
    const refused = await fetchWith(CORS, new Request("http://local/items", { headers: { origin: APP } }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("give no CORS header to another origin, nor to any origin by default", async () => {
    for (const [settings, origin] of [
      [CORS, "https://evil.example"],
      [{}, APP],
    ] as const) {
      const res = await preflight("/items", origin, "POST", settings);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      expect(res.status).not.toBe(204);
      const token = await tokenFor(newUserId("cors"));
      const get = await fetchWith(
        settings,
        new Request("http://local/items", { headers: { origin, authorization: `Bearer ${token}` } }),
      );
      expect(get.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("need both settings for /mcp: CORS_ALLOWED_ORIGINS alone gets no preflight, and MCP still refuses the origin", async () => {
    const only = await preflight("/mcp", APP);
    expect(only.headers.get("access-control-allow-origin")).toBeNull();
    expect(only.status).toBe(403);

    const both = { ...CORS, MCP_ALLOWED_ORIGINS: APP };
    const res = await preflight("/mcp", APP, "POST", both);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-allow-methods")).toBe("POST");

    const seen: Response[] = [];
    const fetch: WorkerFetch = async (request) => {
      const answered = await fetchWith(both, request);
      seen.push(answered);
      return answered;
    };
    const client = await connectClient("modern", {
      token: await tokenFor(newUserId("cors")),
      fetch,
      headers: { origin: APP },
    });
    expect((await client.callTool("search_items", {})).isError).toBeFalsy();
    await client.close();
    for (const answered of seen) {
      expect(answered.headers.get("access-control-allow-origin")).toBe(APP);
      expect(answered.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
    }
  });
});
