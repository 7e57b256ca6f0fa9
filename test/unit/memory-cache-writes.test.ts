/**
 * The cache's write rules with in-memory fakes and a fixed clock: a writer racing an invalidation cannot
 * leave the old value behind (the verified write), entries live while their memory is fresh, and the
 * admission check answers from the cache on a hit and fills it only after a miss.
 */
import { describe, expect, it } from "vitest";
import type { Team } from "../../src/domain/workspaces";
import { admitMember, fillMembership, MEMBERSHIP_TTL_SECONDS } from "../../src/memory/cached-membership";
import {
  invalidate,
  KEY_WRITE_SPACING_MS,
  noMemoryCache,
  type ServedMemory,
  VERIFY_ATTEMPTS,
  writeVerified,
} from "../../src/memory/memory-cache";
import type { CurrentMemory } from "../../src/memory/memory-reader";
import { entryTtlSeconds, storeServedMemory } from "../../src/memory/served-memory";
import { FakeClock } from "../support/fakes/fake-clock";
import { InMemoryMemoryCache } from "../support/fakes/in-memory-memory-cache";

const HOUR = 3600_000;
const TTL = 24 * HOUR;
const clock = new FakeClock("2026-03-02T09:00:00.000Z");

/** A pause that records what it was asked to wait instead of waiting. */
function recordingPause() {
  const waits: number[] = [];
  return { waits, pause: async (ms: number) => void waits.push(ms) };
}

function served(markdown: string, redactedAt: Date | null = null): ServedMemory {
  return {
    subjectKey: "ada",
    status: "ready",
    errorCode: null,
    checkedAt: null,
    version: {
      id: "11111111-1111-4111-8111-111111111111",
      markdown,
      statements: [],
      generatedAt: new Date(clock.now().getTime() - HOUR),
      redactedAt,
      citations: [],
    },
  };
}

/** A reader over one mutable row: what Postgres holds for "ada". */
function rowReader(initial: CurrentMemory | null) {
  const state = { row: initial, reads: 0 };
  return {
    state,
    reader: {
      current: async () => {
        state.reads++;
        return state.row;
      },
    },
  };
}

describe("the agent's write of a served memory", () => {
  it("puts back what Postgres holds after a redaction that lands between its read and its put", async () => {
    const cache = new InMemoryMemoryCache();
    const { waits, pause } = recordingPause();
    const { state, reader } = rowReader(served("- Leads payments [1]\n- Ships Friday [2]"));
    // The redaction commits and removes the entry just before the agent's put lands.
    cache.beforePut = async () => {
      cache.beforePut = null;
      state.row = served("- Ships Friday [1]", clock.now());
      await invalidate(cache, { memories: ["ada"] });
    };
    expect(await storeServedMemory({ reader, memoryCache: cache, clock, ttlMs: TTL, pause }, "ada")).toBe(
      "stored",
    );
    expect(cache.memories.get("ada")?.version.markdown).toBe("- Ships Friday [1]");
    expect(cache.operations).toEqual(["delete memory ada", "put memory ada", "put memory ada"]);
    // The second write of the key waited for KV's one write a second.
    expect(waits).toEqual([KEY_WRITE_SPACING_MS]);
  });

  it("removes the entry when the memory is gone by its verification (an erase in between)", async () => {
    const cache = new InMemoryMemoryCache();
    const { waits, pause } = recordingPause();
    const { state, reader } = rowReader(served("- Leads payments [1]"));
    cache.beforePut = async () => {
      cache.beforePut = null;
      state.row = null;
      await invalidate(cache, { memories: ["ada"] });
    };
    expect(await storeServedMemory({ reader, memoryCache: cache, clock, ttlMs: TTL, pause }, "ada")).toBe(
      "removed",
    );
    expect(cache.memories.has("ada")).toBe(false);
    expect(waits).toEqual([KEY_WRITE_SPACING_MS]);
  });

  it("gives up and removes the entry when Postgres keeps changing under it, after a bounded number of puts", async () => {
    const cache = new InMemoryMemoryCache();
    const { waits, pause } = recordingPause();
    let n = 0;
    const reader = { current: async () => served(`- Fact ${n++}`) };
    expect(await storeServedMemory({ reader, memoryCache: cache, clock, ttlMs: TTL, pause }, "ada")).toBe(
      "removed",
    );
    expect(cache.memories.has("ada")).toBe(false);
    expect(cache.operations.filter((op) => op.startsWith("put"))).toHaveLength(VERIFY_ATTEMPTS);
    expect(waits).toHaveLength(VERIFY_ATTEMPTS);
  });

  it("removes the entry and reports the failure when the verification cannot be read", async () => {
    const cache = new InMemoryMemoryCache();
    const { waits, pause } = recordingPause();
    let reads = 0;
    const reader = {
      current: async () => {
        if (reads++ > 0) throw new Error("database unavailable");
        return served("- Leads payments [1]");
      },
    };
    await expect(
      storeServedMemory({ reader, memoryCache: cache, clock, ttlMs: TTL, pause }, "ada"),
    ).rejects.toThrow("database unavailable");
    expect(cache.memories.has("ada")).toBe(false);
    expect(cache.operations).toEqual(["put memory ada", "delete memory ada"]);
    expect(waits).toEqual([KEY_WRITE_SPACING_MS]);
  });

  it("writes nothing for a subject without a current version, and nothing at all without a cache", async () => {
    const cache = new InMemoryMemoryCache();
    const { waits, pause } = recordingPause();
    const { reader } = rowReader({
      subjectKey: "ada",
      status: "generating",
      errorCode: null,
      checkedAt: null,
      version: null,
    });
    expect(await storeServedMemory({ reader, memoryCache: cache, clock, ttlMs: TTL, pause }, "ada")).toBe(
      "removed",
    );
    expect(cache.operations).toEqual(["delete memory ada"]);
    expect(waits).toEqual([]);
    expect(
      await storeServedMemory({ reader, memoryCache: noMemoryCache, clock, ttlMs: TTL, pause }, "ada"),
    ).toBe("disabled");
  });
});

describe("an entry's lifetime", () => {
  it("runs until the memory goes stale, from its generation or its last confirmation", () => {
    const memory = served("- Leads");
    expect(entryTtlSeconds(memory, clock.now(), TTL)).toBe((TTL - HOUR) / 1000);
    const confirmed = { ...memory, checkedAt: clock.now() };
    expect(entryTtlSeconds(confirmed, clock.now(), TTL)).toBe(TTL / 1000);
  });

  it("is none for a memory stale within a minute (KV keeps nothing for less)", () => {
    const memory = served("- Leads");
    expect(entryTtlSeconds(memory, new Date(clock.now().getTime() + TTL - HOUR - 59_000), TTL)).toBeNull();
    expect(entryTtlSeconds(memory, new Date(clock.now().getTime() + TTL), TTL)).toBeNull();
    expect(entryTtlSeconds(memory, new Date(clock.now().getTime() + TTL - HOUR - 60_000), TTL)).toBe(60);
  });
});

describe("writeVerified", () => {
  it("ends after one put when the verification reads the same value", async () => {
    const log: string[] = [];
    const { waits, pause } = recordingPause();
    const result = await writeVerified(
      {
        read: async () => {
          log.push("read");
          return { a: 1 };
        },
        put: async () => void log.push("put"),
        remove: async () => void log.push("remove"),
      },
      pause,
    );
    expect(result).toBe("stored");
    expect(log).toEqual(["read", "put", "read"]);
    expect(waits).toEqual([]);
  });
});

describe("an invalidation", () => {
  it("tries a refused delete once more a second later, and throws if it is refused again", async () => {
    const cache = new InMemoryMemoryCache();
    cache.memories.set("ada", served("- Leads"));
    let refusals = 1;
    const deleteMemory = cache.deleteMemory.bind(cache);
    cache.deleteMemory = async (subjectKey) => {
      if (refusals-- > 0) throw new Error("429 Too Many Requests");
      await deleteMemory(subjectKey);
    };
    const { waits, pause } = recordingPause();
    await invalidate(cache, { memories: ["ada", "ada"] }, pause);
    expect(cache.memories.has("ada")).toBe(false);
    expect(waits).toEqual([KEY_WRITE_SPACING_MS]);

    refusals = 2;
    await expect(invalidate(cache, { memories: ["ada"] }, pause)).rejects.toThrow("429");
  });
});

describe("admission", () => {
  const team = (id: string): Team => ({
    id,
    name: id,
    members: ["ada"],
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });

  function store(state: { admitted: "member" | "removed"; teams: string[] }) {
    const calls: string[] = [];
    return {
      calls,
      workspaces: {
        admit: async () => {
          calls.push("admit");
          return state.admitted;
        },
        teams: async () => {
          calls.push("teams");
          return state.teams.map(team);
        },
      },
    };
  }

  it("answers a hit from the cache without asking the store", async () => {
    const cache = new InMemoryMemoryCache();
    cache.memberships.set("acme\u001fada", { teams: ["kestrel"] });
    const { calls, workspaces } = store({ admitted: "member", teams: [] });
    const deferred: Promise<unknown>[] = [];
    const answer = await admitMember(
      { workspaces, memoryCache: cache, defer: async (w) => void deferred.push(w) },
      "acme",
      "ada",
    );
    expect(answer).toEqual({ admitted: "member", membership: { teams: ["kestrel"] } });
    expect(calls).toEqual([]);
    expect(deferred).toEqual([]);
  });

  it("asks the store on a miss, and fills the entry after the answer; a removed member is never cached", async () => {
    const cache = new InMemoryMemoryCache();
    const state = { admitted: "member" as "member" | "removed", teams: ["kestrel", "atlas"] };
    const { workspaces } = store(state);
    const deferred: Promise<unknown>[] = [];
    const deps = {
      workspaces,
      memoryCache: cache,
      defer: async (w: Promise<unknown>) => void deferred.push(w),
    };
    expect(await admitMember(deps, "acme", "ada")).toEqual({ admitted: "member", membership: null });
    expect(cache.memberships.size).toBe(0);
    await Promise.all(deferred.splice(0));
    expect(cache.memberships.get("acme\u001fada")).toEqual({ teams: ["atlas", "kestrel"] });
    expect(cache.ttls.get("member acme\u001fada")).toBe(MEMBERSHIP_TTL_SECONDS);

    state.admitted = "removed";
    expect(await admitMember(deps, "acme", "cy")).toEqual({ admitted: "removed", membership: null });
    expect(deferred).toEqual([]);
  });

  it("reads a subject's memory entry in the same cache read when asked, and decides the admission as without it", async () => {
    const cache = new InMemoryMemoryCache();
    const ada = "acme\u001fada";
    cache.memberships.set(ada, { teams: ["kestrel"] });
    cache.memories.set(ada, { ...served("- Leads"), subjectKey: ada });
    const { calls, workspaces } = store({ admitted: "member", teams: [] });
    const deferred: Promise<unknown>[] = [];
    const deps = {
      workspaces,
      memoryCache: cache,
      defer: async (w: Promise<unknown>) => void deferred.push(w),
    };

    const hit = await admitMember(deps, "acme", "ada", ada);
    expect(hit).toMatchObject({ admitted: "member", membership: { teams: ["kestrel"] } });
    expect(hit.memory?.version.markdown).toBe("- Leads");
    expect(cache.operations).toEqual([`get member ${ada} and memory ${ada}`]);
    expect(calls).toEqual([]);

    // Neither entry cached: the store admits (and the fill is deferred as without the read-ahead).
    const cy = "acme\u001fcy";
    expect(await admitMember(deps, "acme", "cy", cy)).toEqual({
      admitted: "member",
      membership: null,
      memory: null,
    });
    expect(calls[0]).toBe("admit");
    expect(deferred).toHaveLength(1);
    await Promise.all(deferred);
    expect(cache.memberships.get(cy)).toEqual({ teams: [] });
    // Without the cache both are misses.
    expect(await noMemoryCache.membershipAndMemory(ada, ada)).toEqual({ membership: null, memory: null });
  });

  it("a fill that read the member just before their removal removes the entry it put", async () => {
    const cache = new InMemoryMemoryCache();
    const state = { admitted: "member" as "member" | "removed", teams: ["kestrel"] };
    const { workspaces } = store(state);
    cache.beforePut = async () => {
      cache.beforePut = null;
      state.admitted = "removed";
      state.teams = [];
      await invalidate(cache, { memberships: ["acme\u001fada"] });
    };
    const { waits, pause } = recordingPause();
    expect(await fillMembership({ workspaces, memoryCache: cache, pause }, "acme", "ada")).toBe("removed");
    expect(waits).toEqual([KEY_WRITE_SPACING_MS]);
    expect(cache.memberships.has("acme\u001fada")).toBe(false);
  });
});
