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

const auditEvent = (id: string, subject = "ada") => ({
  id,
  at: "2026-11-20T10:00:00.000Z",
  workspaceId: "w",
  actor: "ada",
  subject,
  action: "memory.read",
  channel: "http",
  client: null,
  requestId: "r",
  version: null,
  itemIds: [],
  queryHash: null,
  status: 200,
});
const query = (call: Call | undefined) => Object.fromEntries(call!.url.searchParams);

describe("audit and usage", () => {
  it("me.audit iterates the caller's events across pages with its filters in the query", async () => {
    const fake = scripted([
      json(200, { events: [auditEvent("e1"), auditEvent("e2")], nextCursor: "c1" }),
      json(200, { events: [auditEvent("e3")], nextCursor: null }),
    ]);
    const events = client(fake.fetch).um.me.audit({
      action: "item.read",
      since: new Date("2026-11-01T00:00:00Z"),
      until: "2026-12-01T00:00:00Z",
      limit: 2,
    });
    expect((await events.toArray()).map((e) => e.id)).toEqual(["e1", "e2", "e3"]);
    expect(fake.calls[0]!.url.pathname).toBe("/base/me/audit");
    expect(fake.calls[0]!.headers.authorization).toBe("Bearer t0k");
    expect(query(fake.calls[0])).toEqual({
      action: "item.read",
      since: "2026-11-01T00:00:00.000Z",
      until: "2026-12-01T00:00:00Z",
      limit: "2",
    });
    expect(query(fake.calls[1])).toMatchObject({ cursor: "c1" });
  });

  it("me.usage sends its days (a Date as its UTC day) and answers the ledger", async () => {
    const ledger = { since: "2026-11-01", until: "2026-11-30", days: [] };
    const fake = scripted([json(200, ledger)]);
    const usage = await client(fake.fetch).um.me.usage({
      since: new Date("2026-11-01T10:00:00Z"),
      until: "2026-11-30",
    });
    expect(usage).toEqual(ledger);
    expect(fake.calls[0]!.url.pathname).toBe("/base/me/usage");
    expect(query(fake.calls[0])).toEqual({ since: "2026-11-01", until: "2026-11-30" });
  });

  it("the admin audit.list filters by actor, subject and action", async () => {
    const fake = scripted([json(200, { events: [auditEvent("e1", "team:pay")], nextCursor: null })]);
    const events = await client(fake.fetch)
      .um.audit.list({ actor: "bob", subject: "team:pay", action: "team.change" })
      .toArray();
    expect(events.map((e) => e.subject)).toEqual(["team:pay"]);
    expect(fake.calls[0]!.url.pathname).toBe("/base/audit");
    expect(query(fake.calls[0])).toEqual({ actor: "bob", subject: "team:pay", action: "team.change" });
  });

  it("the admin audit.export asks for NDJSON and yields every line parsed, across chunk boundaries", async () => {
    const text = `${[0, 1, 2].map((n) => JSON.stringify(auditEvent(`e${n}`))).join("\n")}\n`;
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 37) controller.enqueue(bytes.slice(at, at + 37));
        controller.close();
      },
    });
    const fake = scripted([
      new Response(body, { status: 200, headers: { "content-type": "application/x-ndjson" } }),
    ]);
    const events = [];
    for await (const event of client(fake.fetch).um.audit.export({
      subject: "ada",
      since: "2026-11-01T00:00:00Z",
    })) {
      events.push(event.id);
    }
    expect(events).toEqual(["e0", "e1", "e2"]);
    expect(query(fake.calls[0])).toEqual({ subject: "ada", since: "2026-11-01T00:00:00Z", format: "ndjson" });
    expect(fake.calls[0]!.headers.accept).toBe("application/x-ndjson");
  });

  it("the admin audit.export throws invalid_response on a line that is not JSON", async () => {
    const fake = scripted([new Response(`${JSON.stringify(auditEvent("e0"))}\n{oops\n`, { status: 200 })]);
    const events = client(fake.fetch).um.audit.export();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of events) seen.push(event.id);
      })(),
    ).rejects.toMatchObject({ code: "invalid_response", message: expect.stringContaining("line 2") });
    expect(seen).toEqual(["e0"]);
  });

  it("the admin usage.list sends its sort; without the admin scope the error carries its code", async () => {
    const ledger = { since: "2026-11-01", until: "2026-11-30", sort: "tokens", subjects: [] };
    const fake = scripted([json(200, ledger), apiError(403, "insufficient_scope")]);
    const { um } = client(fake.fetch);
    expect(await um.usage.list({ since: "2026-11-01", sort: "tokens" })).toEqual(ledger);
    expect(fake.calls[0]!.url.pathname).toBe("/base/usage");
    expect(query(fake.calls[0])).toEqual({ since: "2026-11-01", sort: "tokens" });
    const refused = await um.audit
      .list()
      .toArray()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnifiedMemoryError);
    expect(refused).toMatchObject({ code: "insufficient_scope", status: 403, requestId: "req-403" });
  });
});

describe("memory correction", () => {
  const dismissal = {
    id: "d1",
    statementId: "s1",
    text: "wrong",
    section: "Facts",
    citations: [],
    reason: "moved",
    at: "2026-11-20T10:00:00.000Z",
  };

  it("dismisses, lists and withdraws under the caller's memory and a team's", async () => {
    const fake = scripted([
      json(201, { dismissal, version: "v2", etag: '"v2"' }),
      json(200, { dismissals: [dismissal] }),
      new Response(null, { status: 204 }),
      json(201, { dismissal, version: "v2", etag: '"v2"' }),
    ]);
    const { um } = client(fake.fetch);
    expect((await um.memory.dismiss("s/1", { reason: "moved" })).etag).toBe('"v2"');
    expect(await um.memory.dismissals()).toEqual([dismissal]);
    await um.memory.withdrawDismissal("d1");
    await um.teams.memory("pay").dismiss("s1");
    expect(fake.calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      "POST /base/memory/statements/s%2F1/dismiss",
      "GET /base/memory/dismissals",
      "DELETE /base/memory/dismissals/d1",
      "POST /base/teams/pay/memory/statements/s1/dismiss",
    ]);
    expect([fake.calls[0]!.body, fake.calls[3]!.body]).toEqual(['{"reason":"moved"}', "{}"]);
  });

  it("takes a token with surrounding whitespace trimmed, and refuses one holding CR, LF or NUL without quoting it", async () => {
    const fake = scripted([json(200, { dismissals: [] })]);
    const um = new UnifiedMemory({ baseUrl: "http://api.test", token: "  abc.def.ghi\n", fetch: fake.fetch });
    expect(await um.memory.dismissals()).toEqual([]);
    expect(fake.calls[0]!.headers.authorization).toBe("Bearer abc.def.ghi");
    for (const token of ["eyJsecret.part\nwrapped", "eyJsecret\r.x", "eyJsecret\u0000x"]) {
      let thrown: unknown;
      try {
        new UnifiedMemory({ baseUrl: "http://api.test", token, fetch: fake.fetch });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect(String(thrown)).toMatch(/CR, LF or NUL/);
      expect(String(thrown)).not.toContain("eyJsecret");
      expect(String((thrown as Error).stack)).not.toContain("eyJsecret");
    }
    // A getToken is asked before every attempt: what it gives is checked the same way, never sent.
    const bad = scripted([]);
    const um2 = new UnifiedMemory({
      baseUrl: "http://api.test",
      getToken: () => "eyJsecret\nx",
      fetch: bad.fetch,
    });
    const error = await um2.memory.dismissals().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).not.toContain("eyJsecret");
    expect(bad.calls).toEqual([]);
  });

  it("never retries a dismissal or a delete once it may have reached the service; a 429 (not processed) is retried", async () => {
    for (const failure of [apiError(503, "database_unavailable"), new TypeError("fetch failed")]) {
      const fake = scripted([failure, json(201, { dismissal, version: "v2", etag: '"v2"' })]);
      const error = await client(fake.fetch)
        .um.memory.dismiss("s1")
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(UnifiedMemoryError);
      expect(fake.calls).toHaveLength(1);
    }
    const deletes = scripted([apiError(504, "timeout"), new Response(null, { status: 204 })]);
    await expect(client(deletes.fetch).um.items.delete("i1")).rejects.toBeInstanceOf(UnifiedMemoryError);
    expect(deletes.calls).toHaveLength(1);
    const limited = scripted([
      apiError(429, "rate_limited", { "retry-after": "1" }),
      json(201, { dismissal, version: "v2", etag: '"v2"' }),
    ]);
    expect((await client(limited.fetch).um.memory.dismiss("s1")).etag).toBe('"v2"');
    expect(limited.calls).toHaveLength(2);
  });

  it("diffs a version against another, and a missing one is not_found", async () => {
    const diff = { from: "v1", to: "v2", added: [], removed: [], kept: [] };
    const fake = scripted([json(200, diff), apiError(404, "not_found")]);
    const { um } = client(fake.fetch);
    expect(await um.memory.diff("v2", { against: "v1" })).toEqual(diff);
    expect(fake.calls[0]!.url.pathname).toBe("/base/memory/versions/v2/diff");
    expect(query(fake.calls[0])).toEqual({ against: "v1" });
    await expect(um.memory.diff("nope")).rejects.toMatchObject({ code: "not_found", status: 404 });
  });

  it("get with asOf asks for the past version without waiting; none then is no_memory_at", async () => {
    const past = {
      memory: "- old",
      version: "v1",
      generatedAt: "x",
      createdAt: "x",
      asOf: "2026-11-01T00:00:00.000Z",
      current: false,
      citations: [],
    };
    const fake = scripted([json(200, past), apiError(404, "no_memory_at")]);
    const { um } = client(fake.fetch);
    const result = await um.memory.get({ asOf: new Date("2026-11-01T00:00:00Z"), wait: 30 });
    expect(result).toMatchObject({ status: "past", current: false });
    expect(query(fake.calls[0])).toEqual({ asOf: "2026-11-01T00:00:00.000Z" });
    await expect(um.memory.get({ asOf: "2020-01-01T00:00:00Z" })).rejects.toMatchObject({
      code: "no_memory_at",
    });
  });
});

describe("webhooks", () => {
  const endpoint = {
    id: "0b4c5a3e-1d2f-4a6b-8c9d-0e1f2a3b4c5d",
    url: "https://hooks.example.com/memory",
    events: ["memory.updated"],
    description: null,
    enabled: true,
    disabledReason: null,
    createdAt: "2026-12-01T00:00:00.000Z",
    updatedAt: "2026-12-01T00:00:00.000Z",
  };

  it("registers, lists, changes, rotates, tests, reads the deliveries of and removes an endpoint", async () => {
    const fake = scripted([
      json(201, { ...endpoint, secret: "whsec_c2VjcmV0" }),
      json(200, { webhooks: [endpoint] }),
      json(200, endpoint),
      json(200, { ...endpoint, enabled: false }),
      json(200, { secret: "whsec_bmV3", previousSecretValidUntil: "2026-12-02T00:00:00.000Z" }),
      json(202, { queued: true }),
      json(200, { deliveries: [] }),
      new Response(null, { status: 204 }),
    ]);
    const { um } = client(fake.fetch);
    const created = await um.webhooks.create({ url: endpoint.url, events: ["memory.updated"] });
    expect(created.secret).toBe("whsec_c2VjcmV0");
    expect((await um.webhooks.list()).webhooks).toEqual([endpoint]);
    expect(await um.webhooks.get(endpoint.id)).toEqual(endpoint);
    expect((await um.webhooks.update(endpoint.id, { enabled: false })).enabled).toBe(false);
    expect((await um.webhooks.rotateSecret(endpoint.id)).secret).toBe("whsec_bmV3");
    await um.webhooks.test(endpoint.id);
    expect(await um.webhooks.deliveries(endpoint.id)).toEqual({ deliveries: [] });
    await um.webhooks.delete(endpoint.id);
    expect(fake.calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      "POST /base/webhooks",
      "GET /base/webhooks",
      `GET /base/webhooks/${endpoint.id}`,
      `PATCH /base/webhooks/${endpoint.id}`,
      `POST /base/webhooks/${endpoint.id}/rotate-secret`,
      `POST /base/webhooks/${endpoint.id}/test`,
      `GET /base/webhooks/${endpoint.id}/deliveries`,
      `DELETE /base/webhooks/${endpoint.id}`,
    ]);
    expect(JSON.parse(fake.calls[0]!.body ?? "")).toEqual({ url: endpoint.url, events: ["memory.updated"] });
    expect(JSON.parse(fake.calls[3]!.body ?? "")).toEqual({ enabled: false });
  });

  it("throws a refused address as bad_request with the service's message, without retrying", async () => {
    const fake = scripted([apiError(400, "bad_request")]);
    const { um } = client(fake.fetch);
    const refused = await um.webhooks
      .create({ url: "https://10.0.0.8/", events: ["memory.updated"] })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(UnifiedMemoryError);
    expect(refused).toMatchObject({ code: "bad_request", status: 400 });
    expect(fake.calls).toHaveLength(1);
  });
});
