import type { Services } from "../composition";
import type { Env } from "../env";
import type { CachedMembership, ServedMemory } from "../memory/memory-cache";

export type Scope = "memory:read" | "items:write" | "admin";

export interface Caller {
  /** The token's `sub`, as the API shows it. */
  userId: string;
  /** The workspace the request acts in (the configured claim, or the default workspace). */
  workspaceId: string;
  /** The caller's subject key (domain/workspaces.ts): what every store and agent is addressed by. */
  subjectKey: string;
  scopes: Set<Scope>;
}

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
