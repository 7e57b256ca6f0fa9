/**
 * The database made unreachable and made to hang under the running worker, through a TCP proxy between the
 * worker and the database's endpoint (see test/support/node/fault-proxy.ts). Every route answers 503
 * `database_unavailable` with Retry-After within a bound, and recovers as soon as the database is back.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { newUserId } from "../support/auth";
import { call, ingest, item, json, warmUpWorker } from "../support/items";

type Mode = "up" | "down" | "hung";

async function setDatabase(mode: Mode): Promise<void> {
  const res = await fetch(`${String(env.FAULT_PROXY_URL)}/mode/${mode}`, { method: "PUT" });
  expect(res.status).toBe(200);
}

/** The configured per-query deadline is 1.5 s (vitest.config.ts); a request may make a few round trips. */
const FAILURE_BOUND_MS = 6_000;
const MISSING = "00000000-0000-4000-8000-000000000000";

interface Route {
  method: string;
  /** `:item` stands for an item of the caller's. */
  path: string;
  body?: unknown;
}

const ROUTES: Route[] = [
  { method: "GET", path: "/health" },
  { method: "GET", path: "/items?q=budget" },
  { method: "GET", path: "/items" },
  { method: "POST", path: "/items", body: { items: [item({ externalId: "while-down" })] } },
  { method: "GET", path: "/items/:item" },
  { method: "DELETE", path: "/items/:item" },
  { method: "GET", path: "/memory" },
  { method: "GET", path: "/memory/runs" },
  { method: "GET", path: "/memory/versions" },
  { method: "GET", path: `/memory/versions/${MISSING}` },
  { method: "DELETE", path: "/me" },
  { method: "GET", path: "/me/audit" },
  { method: "GET", path: "/me/usage" },
];

beforeAll(async () => {
  await setDatabase("up");
  await warmUpWorker();
});
afterEach(() => setDatabase("up"));

describe.each(["down", "hung"] as const)("with the database %s", (mode) => {
  it.each(ROUTES)(
    "$method $path answers 503 database_unavailable with Retry-After in bounded time",
    async (route) => {
      const user = newUserId();
      const [stored] = await ingest(user, [item({ externalId: "kept" })]);
      await setDatabase(mode);

      const started = Date.now();
      const res = await call(user, route.method, route.path.replace(":item", stored!.id), {
        body: route.body,
      });
      const elapsed = Date.now() - started;

      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(elapsed).toBeLessThan(FAILURE_BOUND_MS);
      if (route.path !== "/health") {
        const body = await json<{ error: { code: string; requestId: string } }>(res);
        expect(body.error.code).toBe("database_unavailable");
        expect(body.error.requestId).toBeTruthy();
      }

      // Back up: the same worker answers again without a restart, and the refused request left nothing.
      await setDatabase("up");
      const after = await json<{ items: { externalId: string }[] }>(await call(user, "GET", "/items"));
      expect(after.items.map((i) => i.externalId)).toEqual(["kept"]);
    },
  );
});

describe("recovery", () => {
  it("serves the next request normally once the database answers again", async () => {
    const user = newUserId();
    await setDatabase("hung");
    expect((await call(user, "GET", "/health")).status).toBe(503);
    await setDatabase("up");
    const started = Date.now();
    const res = await call(user, "GET", "/health");
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(FAILURE_BOUND_MS);
    expect(
      (await call(user, "POST", "/items", { body: { items: [item({ externalId: "after" })] } })).status,
    ).toBe(200);
  });
});

describe("logs", () => {
  it("log a refused request as one line of JSON with its id and code, never the request's content", async () => {
    const user = newUserId();
    const secret = `secret-body-${crypto.randomUUID()}`;
    const lines: string[] = [];
    const spy = vi
      .spyOn(console, "error")
      .mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      await setDatabase("down");
      const res = await call(user, "POST", "/items", {
        body: { items: [item({ externalId: "private", body: secret, title: secret })] },
      });
      expect(res.status).toBe(503);
      const requestId = res.headers.get("x-request-id");
      const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logged).toContainEqual(
        expect.objectContaining({ level: "error", requestId, code: "database_unavailable" }),
      );
      expect(lines.join("\n")).not.toContain(secret);
      expect(lines.join("\n")).not.toContain("params");
    } finally {
      spy.mockRestore();
    }
  });
});
