import type { Caller } from "../app/caller";
import type { Services } from "../app/services";
import type { Env } from "../env";
import type { CachedMembership, ServedMemory } from "../memory/memory-cache";

/** Hono's typing for this app: bindings plus what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    services: Services;
    caller: Caller;
    /** The caller's cached admission (active, and their teams), set by authenticate(); null on a miss. */
    membership: CachedMembership | null;
    /**
     * The caller's memory entry as the edge cache held it (memory null: a miss), read with their admission
     * by authenticate({ readsOwnMemory }) for GET /memory; unset on every other request.
     */
    ownMemoryEntry: { subject: string; memory: ServedMemory | null } | undefined;
    /** Whose memory a memory route reads: the caller's key, or a team's (after the membership check). */
    subject: string;
  };
}
