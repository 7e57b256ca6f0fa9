/**
 * The edge cache's port: what a hot read may be answered from without a database round trip (Workers KV in
 * kv/kv-memory-cache.ts; `noMemoryCache` when the worker has no MEMORY_CACHE binding or the cache is turned
 * off). Two kinds of entries, both keyed by subject key (domain/workspaces.ts):
 * - a subject's served memory: the row GET /memory decides from (version, redacted_at, generatedAt,
 *   checkedAt, status), only while it has a current version (served-memory.ts writes and removes them);
 * - a member's admission: "an active member of the workspace, in these teams" (cached-membership.ts).
 * An absent entry is never an answer, only a miss: the caller asks Postgres. A caller reading its own
 * memory gets both entries in one read (membershipAndMemory: one KV round trip for a GET /memory hit).
 */
import type { CurrentMemory } from "./memory-reader";

/** A memories row that GET /memory can serve: one with a current version. */
export type ServedMemory = CurrentMemory & { version: NonNullable<CurrentMemory["version"]> };

/** An active member of a workspace and the teams (ids) they belong to; only active members are cached. */
export interface CachedMembership {
  teams: string[];
}

export interface MembershipAndMemory {
  membership: CachedMembership | null;
  memory: ServedMemory | null;
}

export interface MemoryCache {
  /** False for the disabled cache: callers skip the work that would only feed it. */
  readonly enabled: boolean;
  /** The subject's served memory, or null (a miss: read Postgres). A read that fails is a miss. */
  memory(subjectKey: string): Promise<ServedMemory | null>;
  /** Writes the entry, kept at most `ttlSeconds` (at least 60, Workers KV's floor). */
  putMemory(memory: ServedMemory, ttlSeconds: number): Promise<void>;
  deleteMemory(subjectKey: string): Promise<void>;
  /** The member's cached admission, or null (a miss: ask the workspace store). */
  membership(memberKey: string): Promise<CachedMembership | null>;
  /**
   * The member's admission and a subject's served memory, in one read; each null on its miss (a read that
   * fails is a miss for both).
   */
  membershipAndMemory(memberKey: string, subjectKey: string): Promise<MembershipAndMemory>;
  putMembership(memberKey: string, membership: CachedMembership, ttlSeconds: number): Promise<void>;
  deleteMembership(memberKey: string): Promise<void>;
}

/** No cache: every read is a miss and writes do nothing; the service reads Postgres as without one. */
export const noMemoryCache: MemoryCache = {
  enabled: false,
  memory: async () => null,
  putMemory: async () => {},
  deleteMemory: async () => {},
  membership: async () => null,
  membershipAndMemory: async () => ({ membership: null, memory: null }),
  putMembership: async () => {},
  deleteMembership: async () => {},
};

/** Workers KV refuses an expiration less than 60 s away. */
export const MIN_ENTRY_TTL_SECONDS = 60;

/** What an invalidation removes, at once: memories that changed or are gone, admissions that changed. */
export interface Invalidation {
  memories?: string[];
  memberships?: string[];
}

/**
 * Workers KV takes at most one write a second to the same key (a faster one may be refused with a 429), so
 * a second write of a key by the same caller waits this long first.
 */
export const KEY_WRITE_SPACING_MS = 1_100;

/** Waits (setTimeout in production; tests pass their own). */
export type Pause = (ms: number) => Promise<void>;
const sleep: Pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Removes entries, before the request that changed them returns (so no later read in this location is
 * answered from them). Removal, not replacement: a replacement would be a write racing the agent's own
 * (served-memory.ts); the next write of the subject's agent fills the entry again. A delete that fails (the
 * key was just written by someone else, say) is tried once more a second later; a second failure throws.
 */
export async function invalidate(
  cache: MemoryCache,
  { memories = [], memberships = [] }: Invalidation,
  pause: Pause = sleep,
) {
  if (!cache.enabled) return;
  const retried = async (remove: () => Promise<void>) => {
    try {
      await remove();
    } catch {
      await pause(KEY_WRITE_SPACING_MS);
      await remove();
    }
  };
  await Promise.all([
    ...[...new Set(memories)].map((subject) => retried(() => cache.deleteMemory(subject))),
    ...[...new Set(memberships)].map((member) => retried(() => cache.deleteMembership(member))),
  ]);
}

/** A write is re-checked this many times before the entry is given up (removed). */
export const VERIFY_ATTEMPTS = 3;

/** One entry's source of truth and its slot in the cache, for writeVerified. */
export interface VerifiedEntry<T> {
  /** The value as Postgres has it now, or null when there is nothing to cache. */
  read(): Promise<T | null>;
  put(value: T): Promise<void>;
  remove(): Promise<void>;
}

/**
 * Workers KV has no compare-and-set, so a put cannot be made conditional on what it replaces: a writer that
 * read before a concurrent invalidation committed, and puts after that invalidation removed the entry,
 * would bring the old value back. Every put is therefore followed by a fresh read of the source: the same
 * value ends the write; a different one is written in its place (bounded by VERIFY_ATTEMPTS, then the entry
 * is removed); nothing to cache removes it. Every write after the first waits KEY_WRITE_SPACING_MS (KV's
 * one write a second per key). A write that fails half-way removes the entry (best effort, after the same
 * wait) and rethrows. So an entry converges to what Postgres held after the last writer's last read, and a
 * put carrying old data lasts only until the same call's next read corrects it (about a second).
 */
export async function writeVerified<T>(
  entry: VerifiedEntry<T>,
  pause: Pause = sleep,
): Promise<"stored" | "removed"> {
  let written: string | null = null;
  try {
    for (let attempt = 0; attempt <= VERIFY_ATTEMPTS; attempt++) {
      const value = await entry.read();
      if (value === null) break;
      const stamp = JSON.stringify(value);
      if (stamp === written) return "stored";
      if (attempt === VERIFY_ATTEMPTS) break;
      if (written !== null) await pause(KEY_WRITE_SPACING_MS);
      await entry.put(value);
      written = stamp;
    }
    if (written !== null) await pause(KEY_WRITE_SPACING_MS);
    await entry.remove();
    return "removed";
  } catch (error) {
    await pause(KEY_WRITE_SPACING_MS);
    await entry.remove().catch(() => {});
    throw error;
  }
}
