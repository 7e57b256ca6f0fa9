/**
 * Reading a subject's memory, as GET /memory and the MCP tools do: one row, from the edge cache when it holds
 * the subject's served memory (no database round trip), else from the read model; the decision
 * (read-model.ts, the same for both); a poke of the subject's agent when the memory is stale or missing;
 * and, when asked to, a wait for a first memory. A subject who can see no item gets "empty", and no run.
 * A miss does not fill the cache: only writers do (served-memory.ts). A caller that has just read the
 * subject's cache entry (GET /memory reads it with the admission: cached-membership.ts) passes it as
 * `cached`, and the cache is not read again; a null entry is a miss as any other.
 */
import type { Clock } from "../domain/clock";
import type { ItemStore } from "../domain/items";
import type { MemoryAgents } from "./memory-agents-port";
import type { MemoryCache, ServedMemory } from "./memory-cache";
import type { MemoryReader } from "./memory-reader";
import { decideRead, type ReadDecision, waitPollDelays } from "./read-model";

export interface MemoryReadDeps {
  memoryReader: Pick<MemoryReader, "current">;
  memoryCache: MemoryCache;
  items: Pick<ItemStore, "search">;
  memoryAgents: Pick<MemoryAgents, "requestRefresh">;
  clock: Clock;
  config: { memory: { ttlMs: number } };
  /** Runs the poke after the answer (waitUntil). */
  defer(work: Promise<unknown>): Promise<void>;
}

export async function readMemory(
  deps: MemoryReadDeps,
  subjectKey: string,
  options: {
    waitMs?: number;
    /** The subject's cache entry as this request already read it (null: a miss); read here when absent. */
    cached?: ServedMemory | null;
  } = {},
): Promise<ReadDecision> {
  const decide = (row: Awaited<ReturnType<MemoryReader["current"]>>) =>
    decideRead(row, { now: deps.clock.now(), ttlMs: deps.config.memory.ttlMs });
  const read = async () => decide(await deps.memoryReader.current(subjectKey));
  const cached = options.cached === undefined ? await deps.memoryCache.memory(subjectKey) : options.cached;
  let decision = cached ? decide(cached) : await read();
  if (decision.kind === "generating" && !(await canSeeAnyItem(deps, subjectKey))) {
    return { kind: "empty", poke: false };
  }
  if (decision.poke) {
    const memoryMissing = decision.kind !== "ready";
    await deps.defer(deps.memoryAgents.requestRefresh(subjectKey, "read", { memoryMissing }));
  }
  if (decision.kind === "generating" && options.waitMs) {
    for (const delay of waitPollDelays(options.waitMs)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      decision = await read();
      if (decision.kind !== "generating") break;
    }
  }
  return decision;
}

async function canSeeAnyItem(deps: Pick<MemoryReadDeps, "items">, subjectKey: string): Promise<boolean> {
  return (await deps.items.search(subjectKey, { limit: 1 })).items.length > 0;
}
