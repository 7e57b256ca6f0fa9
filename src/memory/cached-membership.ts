/**
 * Workspace admission without a database round trip on a hit. Every authenticated request checks that the
 * caller is an active member of their workspace (a first call registers them), and team memory routes check
 * team membership; both answer from one cache entry per member: "active, in these teams".
 *
 * Only active members are cached: a removed member always misses and is refused by the store, and adding a
 * member back needs no invalidation. A miss answers from the store (one round trip, as without a cache)
 * and fills the entry after the response (deferred), with a verified write (memory-cache.ts writeVerified):
 * a fill that read "member" just before the member was removed, and put after the removal deleted the
 * entry, is corrected by its own next read, which sees the removal.
 *
 * Every change of an admission removes the entry before its request returns (workspace-changes.ts): the
 * member removed, a team's added and dropped members, every member of a deleted team.
 *
 * A caller about to read a subject's memory (GET /memory: their own) can ask for that subject's cache entry
 * in the same cache read (`memoryOf`): one round trip for both, the entry returned as read, for that one
 * request's readMemory (memory-read.ts `cached`). The admission is decided exactly as without it.
 */
import type { WorkspaceStore } from "../domain/workspace-store";
import { userKey } from "../domain/workspaces";
import {
  type CachedMembership,
  type MemoryCache,
  type Pause,
  type ServedMemory,
  writeVerified,
} from "./memory-cache";

/** An entry is refreshed from the store at least this often (a bound on any missed invalidation). */
export const MEMBERSHIP_TTL_SECONDS = 3600;

export interface MembershipDeps {
  workspaces: Pick<WorkspaceStore, "admit" | "teams">;
  memoryCache: MemoryCache;
  /** Runs work after the response (waitUntil). */
  defer(work: Promise<unknown>): Promise<void>;
  /** Waits between two writes of the entry (setTimeout unless given). */
  pause?: Pause;
}

export interface Admission {
  admitted: "member" | "removed";
  /** The cached entry when the answer came from the cache; null on a miss. */
  membership: CachedMembership | null;
  /** Only when asked (`memoryOf`): that subject's cache entry, read with the admission; null on a miss. */
  memory?: ServedMemory | null;
}

/**
 * The caller's admission: from the cache on a hit; from the store (registering a newcomer) on a miss. With
 * `memoryOf`, the cache read also fetches that subject's memory entry (one round trip for both).
 */
export async function admitMember(
  deps: MembershipDeps,
  workspaceId: string,
  userId: string,
  memoryOf?: string,
): Promise<Admission> {
  const key = userKey(workspaceId, userId);
  const read =
    memoryOf === undefined
      ? { membership: await deps.memoryCache.membership(key) }
      : await deps.memoryCache.membershipAndMemory(key, memoryOf);
  if (read.membership) return { ...read, admitted: "member" };
  const admitted = await deps.workspaces.admit(workspaceId, userId);
  if (admitted === "member" && deps.memoryCache.enabled) {
    await deps.defer(fillMembership(deps, workspaceId, userId));
  }
  return { ...read, admitted };
}

/** Writes the member's entry from the store, verified; removes it if they are no longer a member. */
export function fillMembership(
  deps: Omit<MembershipDeps, "defer">,
  workspaceId: string,
  userId: string,
): Promise<"stored" | "removed"> {
  const key = userKey(workspaceId, userId);
  return writeVerified<CachedMembership>(
    {
      read: async () => {
        const [admitted, teams] = await Promise.all([
          deps.workspaces.admit(workspaceId, userId),
          deps.workspaces.teams(workspaceId, userId),
        ]);
        return admitted === "member" ? { teams: teams.map((t) => t.id).sort() } : null;
      },
      put: (membership) => deps.memoryCache.putMembership(key, membership, MEMBERSHIP_TTL_SECONDS),
      remove: () => deps.memoryCache.deleteMembership(key),
    },
    deps.pause,
  );
}
