/**
 * The served-memory entries of the edge cache: who writes them, who removes them, and how long they live.
 *
 * Only writers fill. A subject's MemoryAgent writes its entry right after its own commit changed what
 * GET /memory serves: a version became current (runAccepted) or was confirmed unchanged (confirmUnchanged,
 * which moves `checkedAt`). Requests that redact or erase remove the entries of the subjects they touched
 * before they return (deletion.ts, workspace-changes.ts, invalidatingUpserts below). Readers never write: a
 * GET /memory that misses reads Postgres and leaves the cache alone, so a read that started before a
 * redaction can never put the memory it read back into the cache after the redaction removed it.
 *
 * The one writer that can still race an invalidation is the agent (it reads the row, then puts it); its
 * write is verified (memory-cache.ts writeVerified), so the entry converges to Postgres within that call.
 * It also runs behind the run's fence (run-guard.ts), so an erase, which waits for the agent's writes in
 * flight before erasing, removes it last.
 *
 * An entry lives only while its memory is fresh (until max(generatedAt, checkedAt) + MEMORY_TTL): a stale
 * memory is read from Postgres, where the daily sweep's confirmations (checked_at) land, so `stale` is what
 * Postgres would say; and no entry outlives one freshness window, whatever invalidation failed.
 */
import type { Clock } from "../domain/clock";
import type { ItemStore } from "../domain/items";
import {
  invalidate,
  type MemoryCache,
  MIN_ENTRY_TTL_SECONDS,
  type Pause,
  type ServedMemory,
  writeVerified,
} from "./memory-cache";
import type { CurrentMemory, MemoryReader } from "./memory-reader";

export interface ServedMemoryDeps {
  reader: Pick<MemoryReader, "current">;
  memoryCache: MemoryCache;
  clock: Clock;
  /** The freshness window (MEMORY_TTL_HOURS). */
  ttlMs: number;
  /** Waits between two writes of the entry (setTimeout unless given). */
  pause?: Pause;
}

/** Seconds the entry may live (until the memory goes stale), or null when it is stale within a minute. */
export function entryTtlSeconds(memory: ServedMemory, now: Date, ttlMs: number): number | null {
  const freshAsOf = Math.max(memory.version.generatedAt.getTime(), memory.checkedAt?.getTime() ?? 0);
  const seconds = Math.floor((freshAsOf + ttlMs - now.getTime()) / 1000);
  return seconds >= MIN_ENTRY_TTL_SECONDS ? seconds : null;
}

const isServed = (row: CurrentMemory | null): row is ServedMemory => Boolean(row?.version);

/** The agent's write of `subjectKey`'s entry after its commit: what Postgres serves now, verified. */
export async function storeServedMemory(
  deps: ServedMemoryDeps,
  subjectKey: string,
): Promise<"stored" | "removed" | "disabled"> {
  const { memoryCache: cache } = deps;
  if (!cache.enabled) return "disabled";
  let ttlSeconds = 0;
  return writeVerified<ServedMemory>(
    {
      read: async () => {
        const row = await deps.reader.current(subjectKey);
        const ttl = isServed(row) ? entryTtlSeconds(row, deps.clock.now(), deps.ttlMs) : null;
        if (!isServed(row) || ttl === null) return null;
        ttlSeconds = ttl;
        return row;
      },
      put: (memory) => cache.putMemory(memory, ttlSeconds),
      remove: () => cache.deleteMemory(subjectKey),
    },
    deps.pause,
  );
}

/**
 * The item store, with ingest's redactions reaching the cache: an upsert that shares an item with fewer
 * targets redacts (db/item-upsert.ts), and the redacted subjects' entries go before the request returns,
 * whichever route ingested (POST /items, MCP `remember`, inbound email).
 */
export function invalidatingUpserts(items: ItemStore, memoryCache: MemoryCache): ItemStore {
  return {
    ...items,
    async upsert(subjectKey, inputs) {
      const result = await items.upsert(subjectKey, inputs);
      await invalidate(memoryCache, { memories: result.redactedSubjects });
      return result;
    },
  };
}
