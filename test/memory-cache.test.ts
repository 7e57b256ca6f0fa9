/**
 * The edge cache through the whole worker, on the real KV of workerd: memories are cached by the subject's
 * agent when a version becomes current, hits answer exactly as Postgres would (body, ETag, 304, `stale`,
 * `?format=json`), and every path that redacts, erases or changes an admission removes the entries it
 * touched before its request returns. Without the binding (or with MEMORY_CACHE_ENABLED=false) every read is
 * Postgres. That a hit makes no database round trip at all is shown in test/faults/memory-cache-hit.test.ts.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { memoryCacheFor } from "../src/composition";
import { configFor } from "../src/config/config";
import type { Statement } from "../src/domain/memory";
import { teamKey, userKey } from "../src/domain/workspaces";
import type { Env } from "../src/env";
import worker from "../src/index";
import { createKvMemoryCache } from "../src/kv/kv-memory-cache";
import type { ServedMemory } from "../src/memory/memory-cache";
import { storeServedMemory } from "../src/memory/served-memory";
import { READ_WRITE, tokenFor } from "./support/auth";
import { item, warmUpWorker } from "./support/items";
import { connectClient } from "./support/mcp-clients";
import {
  clearAlarm,
  FakeGenerator,
  installAgent,
  overrideAgentOf,
  runAlarm,
  services,
  statement,
} from "./support/memory-agent";
import { registerMembersIn } from "./support/workspaces";

const ADMIN = [...READ_WRITE, "admin"] as const;
const MINUTE = 60_000;

beforeAll(warmUpWorker);
const agents: string[] = [];
afterEach(async () => {
  for (const key of agents.splice(0)) await clearAlarm(key);
});

const kv = () => createKvMemoryCache((env as Env).MEMORY_CACHE!);

/** The worker's bindings without the cache, and with it turned off by setting. */
function envWithoutCache(): Env {
  const { MEMORY_CACHE: _cache, ...rest } = env as Env;
  return rest as Env;
}
const envCacheOff = (): Env => ({ ...(env as Env), MEMORY_CACHE_ENABLED: "false" });

interface SendOptions {
  body?: unknown;
  scopes?: readonly string[];
  headers?: Record<string, string>;
  bindings?: Env;
}

/** One workspace of fresh users; calls the worker as them and waits for what it deferred. */
function workspace(label: string) {
  const ws = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  const send = async (user: string, method: string, path: string, options: SendOptions = {}) => {
    const token = await tokenFor(user, options.scopes ?? READ_WRITE, { org_id: ws });
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...options.headers };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const ctx = createExecutionContext();
    const request = new Request(`http://local${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const res = await worker.fetch(
      request as Request<unknown, IncomingRequestCfProperties>,
      options.bindings ?? (env as Env),
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  };
  const ingest = async (user: string, items: unknown[]) => {
    const res = await send(user, "POST", "/items", { body: { items } });
    if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { items: { id: string }[] }).items.map((i) => i.id);
  };
  const admin = (method: string, path: string, body?: unknown) =>
    send("root", method, path, { body, scopes: ADMIN });
  return {
    ws,
    send,
    ingest,
    admin,
    user: (id: string) => userKey(ws, id),
    team: (id: string) => teamKey(ws, id),
  };
}

type Workspace = ReturnType<typeof workspace>;

/**
 * The subject's first memory, made by its agent with these statements: the read that finds none (202), the
 * agent's run, and the read that follows. Returns the agent's clock and generator for later runs.
 */
async function firstMemory(w: Workspace, subject: string, readAs: string, path: string, say: Statement[]) {
  const generator = new FakeGenerator({ kind: "accept", statements: say });
  const { clock } = await installAgent(subject, generator);
  agents.push(subject);
  expect((await w.send(readAs, "GET", path)).status).toBe(202);
  expect(await runAlarm(subject)).toBe(true);
  const res = await w.send(readAs, "GET", path);
  expect(res.status).toBe(200);
  return { generator, clock, body: (await res.json()) as MemoryBody, etag: res.headers.get("etag")! };
}

interface MemoryBody {
  memory: string;
  version: string;
  generatedAt: string;
  stale: boolean;
  citations: { id: string }[];
}

const cached = (subject: string) => kv().memory(subject);
const cachedMembership = (member: string) => kv().membership(member);

/**
 * The worker's bindings with MEMORY_CACHE wrapped to record every get (the keys of each call: one call is
 * one round trip to KV, whether for one key or several). `failReads` makes every get throw.
 */
function recordingCache(options: { failReads?: boolean } = {}) {
  const namespace = (env as Env).MEMORY_CACHE!;
  const reads: string[][] = [];
  const recorded = {
    get: (key: string | string[], getOptions: unknown) => {
      reads.push([key].flat());
      if (options.failReads) return Promise.reject(new Error("KV unavailable"));
      return namespace.get(key as string, getOptions as KVNamespaceGetOptions<"json">);
    },
    put: namespace.put.bind(namespace),
    delete: namespace.delete.bind(namespace),
    list: namespace.list.bind(namespace),
  } as unknown as KVNamespace;
  return {
    bindings: { ...(env as Env), MEMORY_CACHE: recorded },
    /** The reads made since the last call. */
    take: () => reads.splice(0),
  };
}

describe("a dismissal", () => {
  it("rewrites the subject's entry before its request returns: a hit serves the memory without the statement", async () => {
    const w = workspace("cache-dismiss");
    await registerMembersIn(w.ws, "ada");
    const [a, b] = await w.ingest("ada", [item({ externalId: "a" }), item({ externalId: "b" })]);
    const ada = w.user("ada");
    const first = await firstMemory(w, ada, "ada", "/memory", [
      statement("Work", "Leads payments", a!),
      statement("Work", "Reviews billing", b!),
    ]);
    const json = (await (await w.send("ada", "GET", "/memory?format=json")).json()) as {
      statements: { id: string; text: string }[];
    };
    const reviews = json.statements.find((st) => st.text === "Reviews billing")!;
    expect((await cached(ada))?.version.statements.map((st) => st.text)).toContain("Reviews billing");

    const res = await w.send("ada", "POST", `/memory/statements/${reviews.id}/dismiss`, { body: {} });
    expect(res.status).toBe(201);
    const entry = await cached(ada);
    expect(entry?.version.statements.map((st) => st.text)).toEqual(["Leads payments"]);
    expect(entry?.version.redactedAt).not.toBeNull();
    const hit = await w.send("ada", "GET", "/memory", { headers: { "if-none-match": first.etag } });
    const direct = await w.send("ada", "GET", "/memory", { bindings: envWithoutCache() });
    expect(hit.status).toBe(200);
    expect(hit.headers.get("etag")).toBe(direct.headers.get("etag"));
    expect(hit.headers.get("etag")).not.toBe(first.etag);
    expect(await hit.json()).toEqual(await direct.json());
  });
});

describe("a new version", () => {
  it("is written to the cache by the agent, and a hit answers exactly as Postgres does", async () => {
    const w = workspace("cache-version");
    await registerMembersIn(w.ws, "ada");
    const [a, b] = await w.ingest("ada", [item({ externalId: "a" }), item({ externalId: "b" })]);
    const ada = w.user("ada");
    const first = await firstMemory(w, ada, "ada", "/memory", [statement("Work", "Leads payments", a!)]);

    const entry = await cached(ada);
    expect(entry?.version.id).toBe(first.body.version);
    expect(entry?.version.markdown).toBe(first.body.memory);

    // Body, ETag and Cache-Control, in both formats, as the same read without the cache gives them.
    for (const path of ["/memory", "/memory?format=json"]) {
      const hit = await w.send("ada", "GET", path);
      const direct = await w.send("ada", "GET", path, { bindings: envWithoutCache() });
      expect(hit.status).toBe(200);
      expect(hit.headers.get("etag")).toBe(direct.headers.get("etag"));
      expect(hit.headers.get("cache-control")).toBe("private, no-cache");
      expect(await hit.json()).toEqual(await direct.json());
    }
    const notModified = await w.send("ada", "GET", "/memory", { headers: { "if-none-match": first.etag } });
    expect(notModified.status).toBe(304);

    // The answer really comes from the entry: a doctored entry is what a hit serves.
    await kv().putMemory({ ...entry!, version: { ...entry!.version, markdown: "from the cache" } }, 600);
    expect(((await (await w.send("ada", "GET", "/memory")).json()) as MemoryBody).memory).toBe(
      "from the cache",
    );

    // The next accepted version replaces the entry: new body, new ETag, the old ETag no longer matches.
    first.generator.push({ kind: "accept", statements: [statement("Work", "Leads billing", b!)] });
    first.clock.advance(services().config.memory.minIntervalMs + MINUTE);
    expect((await w.send("ada", "POST", "/memory/refresh")).status).toBe(202);
    expect(await runAlarm(ada)).toBe(true);
    const next = await cached(ada);
    expect(next?.version.id).not.toBe(first.body.version);
    const res = await w.send("ada", "GET", "/memory", { headers: { "if-none-match": first.etag } });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe(`"${next!.version.id}"`);
    expect(((await res.json()) as MemoryBody).memory).toBe("## Work\n- Leads billing [1]");
  });

  it("lives until the memory goes stale (MEMORY_TTL_HOURS), and a memory already stale is not cached", async () => {
    const w = workspace("cache-ttl");
    await registerMembersIn(w.ws, "ada");
    const [a] = await w.ingest("ada", [item({ externalId: "a" })]);
    const ada = w.user("ada");
    const { clock } = await firstMemory(w, ada, "ada", "/memory", [statement("Work", "Leads", a!)]);
    const ttlMs = services().config.memory.ttlMs;

    // Written by the agent at its "now" (its clock is a year ahead, as is the memory): fresh for one window.
    const { keys } = await (env as Env).MEMORY_CACHE!.list({ prefix: "memory/" });
    const key = keys.find((k) => k.name === `memory/${encodeURIComponent(ada)}`);
    const expected = (Date.now() + ttlMs) / 1000;
    expect(key?.expiration).toBeGreaterThan(expected - 120);
    expect(key?.expiration).toBeLessThanOrEqual(expected + 5);

    // The same write a window later finds the memory stale: the entry is removed, not written.
    const later = { now: () => new Date(clock.now().getTime() + ttlMs + MINUTE) };
    const deps = { reader: services().memoryReader, memoryCache: kv(), clock: later, ttlMs };
    expect(await storeServedMemory(deps, ada)).toBe("removed");
    expect(await cached(ada)).toBeNull();
    expect(await storeServedMemory({ ...deps, clock }, ada)).toBe("stored");
    expect(await cached(ada)).not.toBeNull();
  });
});

describe("redaction removes the entries of the subjects it redacted before the request returns", () => {
  it("by an item delete", async () => {
    const w = workspace("cache-delete");
    await registerMembersIn(w.ws, "ada");
    const [a, b] = await w.ingest("ada", [item({ externalId: "a" }), item({ externalId: "b" })]);
    const ada = w.user("ada");
    const first = await firstMemory(w, ada, "ada", "/memory", [
      statement("Work", "Leads payments", a!),
      statement("Work", "Ships Friday", b!),
    ]);
    expect(await cached(ada)).not.toBeNull();

    expect((await w.send("ada", "DELETE", `/items/${a}`)).status).toBe(204);
    expect(await cached(ada)).toBeNull();
    const res = await w.send("ada", "GET", "/memory", { headers: { "if-none-match": first.etag } });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).not.toBe(first.etag);
    expect(((await res.json()) as MemoryBody).memory).toBe("## Work\n- Ships Friday [1]");
  });

  it("by a re-share to fewer targets", async () => {
    const w = workspace("cache-reshare");
    await registerMembersIn(w.ws, "ada", "ben");
    const shared = item({ externalId: "s", sharedWith: ["ada"] });
    const [s] = await w.ingest("ben", [shared]);
    const [r] = await w.ingest("ada", [item({ externalId: "r" })]);
    const ada = w.user("ada");
    await firstMemory(w, ada, "ada", "/memory", [
      statement("Work", "Ben's plan", s!),
      statement("Work", "Own fact", r!),
    ]);
    expect(await cached(ada)).not.toBeNull();

    await w.ingest("ben", [{ ...shared, sharedWith: [] }]);
    expect(await cached(ada)).toBeNull();
    const body = (await (await w.send("ada", "GET", "/memory")).json()) as MemoryBody;
    expect(body.memory).toBe("## Work\n- Own fact [1]");
  });

  it("by a sharee leaving the share", async () => {
    const w = workspace("cache-leave");
    await registerMembersIn(w.ws, "ada", "ben");
    const [s] = await w.ingest("ben", [item({ externalId: "s", sharedWith: ["ada"] })]);
    const [r] = await w.ingest("ada", [item({ externalId: "r" })]);
    const ada = w.user("ada");
    await firstMemory(w, ada, "ada", "/memory", [
      statement("Work", "Ben's plan", s!),
      statement("Work", "Own fact", r!),
    ]);
    expect(await cached(ada)).not.toBeNull();

    expect((await w.send("ada", "DELETE", `/items/${s}`)).status).toBe(204);
    expect(await cached(ada)).toBeNull();
    const body = (await (await w.send("ada", "GET", "/memory")).json()) as MemoryBody;
    expect(body.memory).toBe("## Work\n- Own fact [1]");
  });

  it("through MCP forget_item, and get_memory (which shares the read path) serves the redacted memory", async () => {
    const w = workspace("cache-mcp");
    await registerMembersIn(w.ws, "ada");
    const [a, b] = await w.ingest("ada", [item({ externalId: "a" }), item({ externalId: "b" })]);
    const ada = w.user("ada");
    await firstMemory(w, ada, "ada", "/memory", [
      statement("Work", "Leads payments", a!),
      statement("Work", "Ships Friday", b!),
    ]);
    const entry = await cached(ada);
    const token = await tokenFor("ada", READ_WRITE, { org_id: w.ws });
    const client = await connectClient("modern", { token });
    try {
      // A hit: the doctored entry is what get_memory serves.
      await kv().putMemory({ ...entry!, version: { ...entry!.version, markdown: "from the cache" } }, 600);
      expect((await client.callTool("get_memory", {})).structuredContent?.memory).toBe("from the cache");

      expect((await client.callTool("forget_item", { id: a })).isError).toBeFalsy();
      expect(await cached(ada)).toBeNull();
      expect((await client.callTool("get_memory", {})).structuredContent?.memory).toBe(
        "## Work\n- Ships Friday [1]",
      );
    } finally {
      await client.close();
    }
  });
});

describe("team changes remove the entries and admissions they change", () => {
  /** Team kestrel (ada, ben), ben's item shared with it, cited by the team's memory and by ada's. */
  async function kestrel(label: string) {
    const w = workspace(label);
    await registerMembersIn(w.ws, "ada", "ben");
    expect(
      (await w.admin("PUT", "/teams/kestrel", { name: "Kestrel", members: ["ada", "ben"] })).status,
    ).toBe(201);
    const [t] = await w.ingest("ben", [item({ externalId: "t", sharedWith: ["team:kestrel"] })]);
    const [r] = await w.ingest("ada", [item({ externalId: "r" })]);
    const team = w.team("kestrel");
    const teamMemory = await firstMemory(w, team, "ben", "/teams/kestrel/memory", [
      statement("Projects", "Kestrel ships in May", t!),
    ]);
    await firstMemory(w, w.user("ada"), "ada", "/memory", [
      statement("Work", "Kestrel ships in May", t!),
      statement("Work", "Own fact", r!),
    ]);
    // Both members' admissions are cached with their team (filled after their first requests).
    expect(await cachedMembership(w.user("ada"))).toEqual({ teams: ["kestrel"] });
    expect(await cachedMembership(w.user("ben"))).toEqual({ teams: ["kestrel"] });
    expect(await cached(team)).not.toBeNull();
    expect(await cached(w.user("ada"))).not.toBeNull();
    return { w, team, teamMemory };
  }

  it("by removal from a team: the dropped member's team reads are refused though their admission was cached", async () => {
    const { w, team } = await kestrel("cache-team-drop");
    expect((await w.send("ada", "GET", "/teams/kestrel/memory")).status).toBe(200);

    expect((await w.admin("PUT", "/teams/kestrel", { name: "Kestrel", members: ["ben"] })).status).toBe(200);
    expect(await cachedMembership(w.user("ada"))).toBeNull();
    expect(await cached(w.user("ada"))).toBeNull();
    expect((await w.send("ada", "GET", "/teams/kestrel/memory")).status).toBe(404);
    const own = (await (await w.send("ada", "GET", "/memory")).json()) as MemoryBody;
    expect(own.memory).toBe("## Work\n- Own fact [1]");
    // Ben is still in the team; the team's memory is unchanged and still a hit.
    expect((await w.send("ben", "GET", "/teams/kestrel/memory")).status).toBe(200);
    expect(await cached(team)).not.toBeNull();
    // Ada's admission is cached again, without the team.
    expect(await cachedMembership(w.user("ada"))).toEqual({ teams: [] });

    // Added back: her next team read is allowed again.
    expect(
      (await w.admin("PUT", "/teams/kestrel", { name: "Kestrel", members: ["ada", "ben"] })).status,
    ).toBe(200);
    expect((await w.send("ada", "GET", "/teams/kestrel/memory")).status).toBe(200);
  });

  it("by a team delete: the team's memory entry and its members' admissions go, and no old memory comes back", async () => {
    const { w, team } = await kestrel("cache-team-delete");

    expect((await w.admin("DELETE", "/teams/kestrel")).status).toBe(204);
    expect(await cached(team)).toBeNull();
    expect(await cached(w.user("ada"))).toBeNull();
    expect(await cachedMembership(w.user("ada"))).toBeNull();
    expect(await cachedMembership(w.user("ben"))).toBeNull();
    expect((await w.send("ben", "GET", "/teams/kestrel/memory")).status).toBe(404);
    const own = (await (await w.send("ada", "GET", "/memory")).json()) as MemoryBody;
    expect(own.memory).toBe("## Work\n- Own fact [1]");

    // A new team of the same name starts from nothing (the deleted team's shares are gone with it).
    expect((await w.admin("PUT", "/teams/kestrel", { name: "Kestrel", members: ["ben"] })).status).toBe(201);
    const fresh = await w.send("ben", "GET", "/teams/kestrel/memory");
    expect(fresh.status).toBe(200);
    expect(await fresh.json()).toMatchObject({ version: null, empty: true });
  });
});

describe("a member removed from the workspace", () => {
  it("is refused at once though their admission was cached, their redacted memory's entry goes, and adding them back admits them", async () => {
    const w = workspace("cache-member");
    await registerMembersIn(w.ws, "ada", "ben");
    const [s] = await w.ingest("ben", [item({ externalId: "s", sharedWith: ["ada"] })]);
    const [r] = await w.ingest("ada", [item({ externalId: "r" })]);
    const ada = w.user("ada");
    await firstMemory(w, ada, "ada", "/memory", [
      statement("Work", "Ben's plan", s!),
      statement("Work", "Own fact", r!),
    ]);
    expect(await cachedMembership(ada)).toEqual({ teams: [] });
    expect(await cached(ada)).not.toBeNull();

    expect((await w.admin("DELETE", "/members/ada")).status).toBe(204);
    expect(await cachedMembership(ada)).toBeNull();
    expect(await cached(ada)).toBeNull();
    expect((await w.send("ada", "GET", "/memory")).status).toBe(403);
    expect(await cachedMembership(ada)).toBeNull();

    expect((await w.admin("PUT", "/members/ada")).status).toBe(201);
    const res = await w.send("ada", "GET", "/memory");
    expect(res.status).toBe(200);
    expect(((await res.json()) as MemoryBody).memory).toBe("## Work\n- Own fact [1]");
    expect(await cachedMembership(ada)).toEqual({ teams: [] });
  });
});

describe("an erase (DELETE /me)", () => {
  it("removes the subject's entry before it returns; the next read starts from nothing", async () => {
    const w = workspace("cache-erase");
    await registerMembersIn(w.ws, "ada");
    const [a] = await w.ingest("ada", [item({ externalId: "a" })]);
    const ada = w.user("ada");
    const first = await firstMemory(w, ada, "ada", "/memory", [statement("Work", "Leads payments", a!)]);
    expect(await cached(ada)).not.toBeNull();

    expect((await w.send("ada", "DELETE", "/me")).status).toBe(204);
    expect(await cached(ada)).toBeNull();
    const res = await w.send("ada", "GET", "/memory", { headers: { "if-none-match": first.etag } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ version: null, empty: true, memory: "" });
  });
});

describe("a personal GET /memory", () => {
  /** Ada with a memory made by her agent, her admission and her memory both cached. */
  async function adaWithMemory(label: string) {
    const w = workspace(label);
    await registerMembersIn(w.ws, "ada");
    const [a] = await w.ingest("ada", [item({ externalId: "a" })]);
    const ada = w.user("ada");
    const first = await firstMemory(w, ada, "ada", "/memory", [statement("Work", "Leads payments", a!)]);
    expect(await cachedMembership(ada)).toEqual({ teams: [] });
    expect(await cached(ada)).not.toBeNull();
    const keys = [`member/${encodeURIComponent(ada)}`, `memory/${encodeURIComponent(ada)}`];
    return { w, ada, first, keys };
  }

  it("is one KV read on a hit (admission and memory entry together), answering 200 with its ETag and 304", async () => {
    const { w, first, keys } = await adaWithMemory("cache-one-read");
    const kvReads = recordingCache();
    const { bindings } = kvReads;

    const hit = await w.send("ada", "GET", "/memory", { bindings });
    expect(hit.status).toBe(200);
    expect(hit.headers.get("etag")).toBe(first.etag);
    expect(hit.headers.get("cache-control")).toBe("private, no-cache");
    expect(await hit.json()).toEqual(first.body);
    expect(kvReads.take()).toEqual([keys]);

    const headers = { "if-none-match": first.etag };
    expect((await w.send("ada", "GET", "/memory", { headers, bindings })).status).toBe(304);
    expect(kvReads.take()).toEqual([keys]);

    // The answer is the entry read with the admission: a doctored entry is what the hit serves.
    const entry = (await cached(w.user("ada")))!;
    await kv().putMemory({ ...entry, version: { ...entry.version, markdown: "from the cache" } }, 600);
    const doctored = await w.send("ada", "GET", "/memory", { bindings });
    expect(((await doctored.json()) as MemoryBody).memory).toBe("from the cache");
    expect(kvReads.take()).toEqual([keys]);

    // Only GET /memory itself reads ahead: its history reads the admission alone.
    expect((await w.send("ada", "GET", "/memory/runs", { bindings })).status).toBe(200);
    expect(kvReads.take()).toEqual([keys.slice(0, 1)]);
  });

  it("with a cached admission and no memory entry still reads Postgres; a KV read that fails is a miss for both", async () => {
    const { w, ada, first, keys } = await adaWithMemory("cache-one-read-miss");
    await kv().deleteMemory(ada);
    const kvReads = recordingCache();

    const res = await w.send("ada", "GET", "/memory", { bindings: kvReads.bindings });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe(first.etag);
    expect(await res.json()).toEqual(first.body);
    expect(kvReads.take()).toEqual([keys]);
    // A miss does not fill the entry (only writers do).
    expect(await cached(ada)).toBeNull();

    // Both entries back in the cache, but KV cannot be read: the store admits, Postgres answers.
    await storeServedMemory(
      {
        reader: services().memoryReader,
        memoryCache: kv(),
        clock: first.clock,
        ttlMs: services().config.memory.ttlMs,
      },
      ada,
    );
    const failing = recordingCache({ failReads: true });
    const fallback = await w.send("ada", "GET", "/memory", { bindings: failing.bindings });
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get("etag")).toBe(first.etag);
    expect(await fallback.json()).toEqual(first.body);
    expect(failing.take()).toEqual([keys]);
  });
});

describe("without the cache", () => {
  it("reads Postgres and writes nothing when the binding is absent or MEMORY_CACHE_ENABLED is false", async () => {
    expect(memoryCacheFor(envWithoutCache(), configFor(envWithoutCache())).enabled).toBe(false);
    expect(memoryCacheFor(envCacheOff(), configFor(envCacheOff())).enabled).toBe(false);
    expect(memoryCacheFor(env as Env, configFor(env)).enabled).toBe(true);

    const w = workspace("cache-off");
    await registerMembersIn(w.ws, "ada", "cy");
    const [a] = await w.ingest("ada", [item({ externalId: "a" })]);
    const ada = w.user("ada");
    const first = await firstMemory(w, ada, "ada", "/memory", [statement("Work", "Leads payments", a!)]);
    const entry = (await cached(ada)) as ServedMemory;
    await kv().putMemory({ ...entry, version: { ...entry.version, markdown: "from the cache" } }, 600);

    for (const bindings of [envWithoutCache(), envCacheOff()]) {
      const res = await w.send("ada", "GET", "/memory", { bindings });
      expect(res.status).toBe(200);
      expect(((await res.json()) as MemoryBody).memory).toBe(first.body.memory);
      // A newcomer is admitted from Postgres; nothing is cached for them.
      expect((await w.send("cy", "GET", "/memory", { bindings })).status).toBe(200);
      expect(await cachedMembership(w.user("cy"))).toBeNull();
    }

    // An agent with the cache turned off writes no entry either.
    const ben = w.user("ben");
    await registerMembersIn(w.ws, "ben");
    const [b] = await w.ingest("ben", [item({ externalId: "b" })]);
    overrideAgentOf(ben, { env: { MEMORY_CACHE_ENABLED: "false" } });
    const off = await firstMemory(w, ben, "ben", "/memory", [statement("Work", "Ships Friday", b!)]);
    expect(off.body.memory).toBe("## Work\n- Ships Friday [1]");
    expect(await cached(ben)).toBeNull();
  });
});
