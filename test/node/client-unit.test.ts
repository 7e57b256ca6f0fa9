/**
 * The TypeScript client against a scripted fetch: retries and their bounds, Retry-After, errors, batching
 * within the limits, 413 splits, 422 isolation, cursors, and GET /memory's 202 waits. Exact: the waits
 * are recorded, never slept.
 */
import { describe, expect, it } from "vitest";
import { MAX_BATCH_BYTES, UnifiedMemory, UnifiedMemoryError } from "../../clients/typescript/src/index";
import type { ItemInput } from "../../clients/typescript/src/types";

interface Call {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

type Answer = Response | Error | ((call: Call) => Response);

/** A fetch that answers from a queue (or one function for every call) and records each call. */
function scripted(answers: Answer[] | ((call: Call) => Response)) {
  const calls: Call[] = [];
  const queue = Array.isArray(answers) ? [...answers] : null;
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const call: Call = {
      method: init.method ?? "GET",
      url: new URL(input),
      headers: init.headers as Record<string, string>,
      body: init.body as string | undefined,
    };
    calls.push(call);
    const next: Answer | undefined = queue ? queue.shift() : (answers as (call: Call) => Response);
    if (next === undefined) throw new Error(`unexpected call ${call.method} ${input}`);
    if (next instanceof Error) throw next;
    return typeof next === "function" ? (next as (c: Call) => Response)(call) : next;
  };
  return { fetch, calls, remaining: () => queue?.length ?? 0 };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const apiError = (status: number, code: string, headers: Record<string, string> = {}, details?: unknown) =>
  json(status, { error: { code, message: `${code}!`, requestId: `req-${status}`, details } }, headers);

function client(fetch: ReturnType<typeof scripted>["fetch"], retries = 3) {
  const waits: number[] = [];
  const sleep = async (ms: number) => void waits.push(ms);
  return {
    waits,
    um: new UnifiedMemory({ baseUrl: "http://api.test/base/", token: "t0k", fetch, retries, sleep }),
  };
}

const note = (n: number, body = `note ${n}`): ItemInput => ({
  source: "notes",
  externalId: `n${n}`,
  kind: "note",
  body,
  occurredAt: "2026-11-20T10:00:00Z",
});

/** POST /items that stores whatever it gets, answering `created` for each item. */
const storeAll = (call: Call) => {
  const items = JSON.parse(call.body ?? "{}").items as { source: string; externalId: string }[];
  return json(200, {
    items: items.map((i, k) => ({
      id: `00000000-0000-4000-8000-${String(k).padStart(12, "0")}`,
      ...i,
      status: "created",
    })),
  });
};

describe("requests", () => {
  it("sends the bearer token to the base URL's path, and a getToken is asked before every attempt", async () => {
    const fake = scripted([
      apiError(503, "database_unavailable", { "retry-after": "0" }),
      json(200, { teams: [] }),
    ]);
    let asked = 0;
    const um = new UnifiedMemory({
      baseUrl: "http://api.test/base",
      getToken: async () => `tok-${++asked}`,
      fetch: fake.fetch,
      sleep: async () => {},
    });
    await um.teams.list();
    expect(fake.calls.map((c) => [c.url.pathname, c.headers.authorization])).toEqual([
      ["/base/teams", "Bearer tok-1"],
      ["/base/teams", "Bearer tok-2"],
    ]);
  });

  it("retries 429, 502, 503 and 504 after their Retry-After, then answers", async () => {
    const fake = scripted([
      apiError(429, "rate_limited", { "retry-after": "2" }),
      new Response("bad gateway", { status: 502 }),
      apiError(503, "database_unavailable", { "retry-after": "5" }),
      json(200, { teams: [] }),
    ]);
    const { um, waits } = client(fake.fetch);
    expect(await um.teams.list()).toEqual({ teams: [] });
    expect(waits[0]).toBe(2000);
    expect(waits[1]).toBeGreaterThanOrEqual(250); // no Retry-After: backoff 500 ms × jitter 0.5-1
    expect(waits[1]).toBeLessThanOrEqual(500);
    expect(waits[2]).toBe(5000);
  });

  it("gives up after the retries: the last error is thrown with its code, status, request id and Retry-After", async () => {
    const fake = scripted(() => apiError(503, "database_unavailable", { "retry-after": "1" }));
    const { um, waits } = client(fake.fetch, 2);
    const error = await um.items.get("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnifiedMemoryError);
    expect(error).toMatchObject({
      code: "database_unavailable",
      status: 503,
      requestId: "req-503",
      retryAfter: 1,
    });
    expect(fake.calls).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it("does not retry what retrying cannot change: 4xx, llm_not_configured, a refresh's 429, a Retry-After beyond the limit", async () => {
    for (const [answer, call] of [
      [apiError(404, "not_found"), (um: UnifiedMemory) => um.items.get("x")],
      [apiError(503, "llm_not_configured"), (um: UnifiedMemory) => um.memory.get()],
      [apiError(429, "rate_limited", { "retry-after": "30" }), (um: UnifiedMemory) => um.memory.refresh()],
      [
        apiError(503, "database_unavailable", { "retry-after": "3600" }),
        (um: UnifiedMemory) => um.teams.list(),
      ],
    ] as const) {
      const fake = scripted([answer]);
      const error = await call(client(fake.fetch).um).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnifiedMemoryError);
      expect(fake.calls).toHaveLength(1);
    }
  });

  it("reports an unreachable server as network_error (status 0) after the retries", async () => {
    const fake = scripted(() => {
      throw new TypeError("fetch failed");
    });
    const { um, waits } = client(fake.fetch, 2);
    await expect(um.items.get("x")).rejects.toMatchObject({ code: "network_error", status: 0 });
    expect(waits).toHaveLength(2);
  });

  it("keeps a non-JSON error readable and takes the request id from the header", async () => {
    const fake = scripted([
      new Response("<html>teapot</html>", { status: 418, headers: { "x-request-id": "r1" } }),
    ]);
    await expect(client(fake.fetch).um.items.get("x")).rejects.toMatchObject({
      code: "http_418",
      status: 418,
      requestId: "r1",
      message: "HTTP 418: <html>teapot</html>",
    });
  });
});

describe("items.upsert", () => {
  it("splits 1,200 items into requests of at most 500 and reports every item in order", async () => {
    const fake = scripted(storeAll);
    const { um } = client(fake.fetch);
    const result = await um.items.upsert(Array.from({ length: 1200 }, (_, i) => note(i)));
    expect(fake.calls.map((c) => JSON.parse(c.body!).items.length)).toEqual([500, 500, 200]);
    expect(result).toMatchObject({ created: 1200, failed: 0, requests: 3 });
    expect(result.items.map((r) => r.index)).toEqual(Array.from({ length: 1200 }, (_, i) => i));
    expect(result.items[700]).toMatchObject({ ok: true, externalId: "n700", status: "created" });
  });

  it("keeps every request within 5 MB of JSON, and fails alone an item that cannot fit in any", async () => {
    const fake = scripted(storeAll);
    const { um } = client(fake.fetch);
    const big = "x".repeat(2 * 1024 * 1024);
    const items = [note(0, big), note(1, big), note(2, big), note(3, "x".repeat(MAX_BATCH_BYTES))];
    const result = await um.items.upsert(items);
    const sizes = fake.calls.map((c) => new TextEncoder().encode(c.body!).length);
    expect(sizes).toHaveLength(2);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    expect(result.created).toBe(3);
    expect(result.items[3]).toMatchObject({ ok: false, error: { code: "payload_too_large", status: 413 } });
  });

  it("splits a request the server refuses as too large (413) until the halves fit", async () => {
    const fake = scripted((call) =>
      JSON.parse(call.body!).items.length > 3 ? apiError(413, "payload_too_large") : storeAll(call),
    );
    const result = await client(fake.fetch).um.items.upsert(Array.from({ length: 10 }, (_, i) => note(i)));
    expect(fake.calls.map((c) => JSON.parse(c.body!).items.length)).toEqual([10, 5, 3, 2, 5, 3, 2]);
    expect(result).toMatchObject({ created: 10, failed: 0, requests: 7 });
  });

  it("fails the items a 422 names, with their problems, and sends the rest again", async () => {
    const fake = scripted([
      apiError(
        422,
        "validation_failed",
        {},
        { items: [{ index: 1, path: "kind", message: "Invalid option" }] },
      ),
      storeAll,
    ]);
    const result = await client(fake.fetch).um.items.upsert([note(0), note(1), note(2)]);
    expect(JSON.parse(fake.calls[1]!.body!).items.map((i: { externalId: string }) => i.externalId)).toEqual([
      "n0",
      "n2",
    ]);
    expect(result).toMatchObject({ created: 2, failed: 1, requests: 2 });
    expect(result.items[1]).toMatchObject({
      ok: false,
      externalId: "n1",
      error: { code: "validation_failed", status: 422 },
      problems: [{ path: "kind", message: "Invalid option" }],
    });
  });

  it("throws on a refused token, after reporting the batches already sent", async () => {
    const fake = scripted([storeAll, apiError(401, "unauthorized")]);
    const reported: number[] = [];
    const upsert = client(fake.fetch).um.items.upsert(
      Array.from({ length: 600 }, (_, i) => note(i)),
      { onBatch: (done) => reported.push(done.length) },
    );
    await expect(upsert).rejects.toMatchObject({ code: "unauthorized", status: 401 });
    expect(reported).toEqual([500]);
  });
});

describe("cursors", () => {
  it("iterates a search across pages with every filter in the query", async () => {
    const hit = (id: string) => ({
      id,
      kind: "note",
      source: "s",
      externalId: id,
      title: null,
      author: null,
      occurredAt: "2026-01-01T00:00:00.000Z",
      snippet: "",
      rank: 1,
    });
    const fake = scripted([
      json(200, { items: [hit("a"), hit("b")], nextCursor: "c1" }),
      json(200, { items: [hit("c")], nextCursor: null }),
    ]);
    const search = client(fake.fetch).um.items.search({
      q: "cut-over",
      kind: ["email", "note"],
      since: new Date("2026-01-01T00:00:00Z"),
      until: "2026-02-01",
      people: "Ada",
      limit: 2,
    });
    expect((await search.toArray()).map((h) => h.id)).toEqual(["a", "b", "c"]);
    const [first, second] = fake.calls.map((c) => c.url.searchParams);
    expect(first!.getAll("kind")).toEqual(["email", "note"]);
    expect(Object.fromEntries([...first!].filter(([k]) => k !== "kind"))).toEqual({
      q: "cut-over",
      since: "2026-01-01T00:00:00.000Z",
      until: "2026-02-01",
      people: "Ada",
      limit: "2",
    });
    expect(second!.get("cursor")).toBe("c1");
  });

  it("stops with an error when the server repeats a cursor instead of looping", async () => {
    const fake = scripted(() => json(200, { runs: [], nextCursor: "same" }));
    await expect(client(fake.fetch).um.memory.runs().toArray()).rejects.toMatchObject({
      code: "invalid_response",
    });
    expect(fake.calls).toHaveLength(2);
  });
});

describe("memory.get", () => {
  const ready = {
    memory: "- fact [1]",
    version: "v1",
    generatedAt: "2026-01-01T00:00:00.000Z",
    stale: false,
    citations: [],
  };

  it("waits through 202s, honouring Retry-After, and asks the API to hold each request for what is left", async () => {
    const fake = scripted([
      json(202, { status: "generating", retryAfter: 3 }, { "retry-after": "3" }),
      json(200, ready, { etag: '"v1"' }),
    ]);
    const { um, waits } = client(fake.fetch);
    const result = await um.memory.get({ wait: 45, format: "json" });
    expect(result).toMatchObject({ status: "ready", etag: '"v1"', memory: "- fact [1]" });
    expect(fake.calls[0]!.url.searchParams.get("wait")).toBe("30");
    expect(fake.calls[0]!.url.searchParams.get("format")).toBe("json");
    expect(waits).toEqual([3000]);
  });

  it("answers generating when the wait is over, after a bounded number of requests", async () => {
    const fake = scripted(() => json(202, { status: "generating", retryAfter: 0 }));
    const { um } = client(fake.fetch);
    expect(await um.memory.get({ wait: 3 })).toEqual({ status: "generating", retryAfter: 0 });
    expect(fake.calls.length).toBeLessThanOrEqual(4);
    expect(
      await client(scripted([json(202, { status: "generating", retryAfter: 5 })]).fetch).um.memory.get(),
    ).toEqual({
      status: "generating",
      retryAfter: 5,
    });
  });

  it("sends If-None-Match and answers not_modified on a 304; a team's memory has its own path", async () => {
    const fake = scripted([new Response(null, { status: 304, headers: { etag: '"v1"' } })]);
    const result = await client(fake.fetch).um.teams.memory("pay ments").get({ ifNoneMatch: '"v1"' });
    expect(result).toEqual({ status: "not_modified", etag: '"v1"' });
    expect(fake.calls[0]!.url.pathname).toBe("/base/teams/pay%20ments/memory");
    expect(fake.calls[0]!.headers["if-none-match"]).toBe('"v1"');
  });

  it("tells an empty memory from a ready one", async () => {
    const empty = { memory: "", version: null, generatedAt: null, stale: false, empty: true, citations: [] };
    const result = await client(scripted([json(200, empty)]).fetch).um.memory.get();
    expect(result.status).toBe("empty");
  });
});
