/**
 * MemoryCache over a Workers KV namespace (the MEMORY_CACHE binding).
 *
 * Consistency, as KV documents it: a write or delete is written to the central store and is visible at once
 * to later reads in the location that made it; other locations keep serving the copy they cached until it
 * is revalidated. Reads ask for the shortest edge caching KV allows (READ_CACHE_TTL_SECONDS), which
 * bounds how long another location may answer from an entry that was replaced or removed elsewhere
 * (README: Edge cache).
 *
 * Keys: `memory/<subject key>` and `member/<member key>` (URI-encoded; a SHA-256 in their place when the
 * encoding would pass KV's 512-byte key limit). Values: JSON with a format number; anything else is a miss.
 * membershipAndMemory reads both of its keys with one bulk get (one round trip to KV, not two).
 */
import { isRunErrorCode, MEMORY_STATUSES, type MemoryStatus } from "../domain/memory";
import { sha256Hex } from "../domain/sha256";
import { logLine } from "../log";
import type { CachedMembership, MemoryCache, ServedMemory } from "../memory/memory-cache";
import { MIN_ENTRY_TTL_SECONDS } from "../memory/memory-cache";

/** KV's minimum edge cache time for reads. */
export const READ_CACHE_TTL_SECONDS = 30;
const FORMAT = 1;
const MAX_ENCODED_KEY = 400;

type Version = ServedMemory["version"];

interface MemoryEntry {
  format: typeof FORMAT;
  subjectKey: string;
  status: ServedMemory["status"];
  errorCode: ServedMemory["errorCode"];
  checkedAt: string | null;
  version: Omit<Version, "generatedAt" | "redactedAt"> & { generatedAt: string; redactedAt: string | null };
}

interface MembershipEntry {
  format: typeof FORMAT;
  teams: string[];
}

export function createKvMemoryCache(kv: KVNamespace): MemoryCache {
  const asJson = { type: "json", cacheTtl: READ_CACHE_TTL_SECONDS } as const;
  const orMiss = async <T>(get: () => Promise<T>): Promise<T | null> => {
    try {
      return await get();
    } catch (error) {
      // A cache that cannot be read is a miss (for every key asked): the caller reads Postgres.
      logLine("warn", "memory_cache_read_failed", { error: nameOf(error) });
      return null;
    }
  };
  const read = (key: string) => orMiss(() => kv.get(key, asJson));
  /** Several keys in one round trip (KV's bulk get): a Map of key to value, null for an absent one. */
  const readMany = (keys: string[]) => orMiss(() => kv.get(keys, asJson));
  const put = (key: string, value: unknown, ttlSeconds: number) =>
    kv.put(key, JSON.stringify(value), {
      expirationTtl: Math.max(MIN_ENTRY_TTL_SECONDS, Math.floor(ttlSeconds)),
    });

  return {
    enabled: true,
    async memory(subjectKey) {
      return decodeMemory(await read(await memoryKey(subjectKey)), subjectKey);
    },
    async putMemory(memory, ttlSeconds) {
      await put(await memoryKey(memory.subjectKey), encodeMemory(memory), ttlSeconds);
    },
    async deleteMemory(subjectKey) {
      await kv.delete(await memoryKey(subjectKey));
    },
    async membership(memberKey) {
      return decodeMembership(await read(await membershipKey(memberKey)));
    },
    async membershipAndMemory(memberKey, subjectKey) {
      const [member, memory] = await Promise.all([membershipKey(memberKey), memoryKey(subjectKey)]);
      const values = await readMany([member, memory]);
      return {
        membership: decodeMembership(values?.get(member) ?? null),
        memory: decodeMemory(values?.get(memory) ?? null, subjectKey),
      };
    },
    async putMembership(memberKey, membership: CachedMembership, ttlSeconds) {
      const entry: MembershipEntry = { format: FORMAT, teams: membership.teams };
      await put(await membershipKey(memberKey), entry, ttlSeconds);
    },
    async deleteMembership(memberKey) {
      await kv.delete(await membershipKey(memberKey));
    },
  };
}

export const memoryKey = (subjectKey: string) => keyOf("memory", subjectKey);
export const membershipKey = (memberKey: string) => keyOf("member", memberKey);

async function keyOf(kind: string, subjectKey: string): Promise<string> {
  const encoded = encodeURIComponent(subjectKey);
  if (encoded.length <= MAX_ENCODED_KEY) return `${kind}/${encoded}`;
  return `${kind}/#${await sha256Hex(subjectKey)}`;
}

function encodeMemory(memory: ServedMemory): MemoryEntry {
  const { version } = memory;
  return {
    format: FORMAT,
    subjectKey: memory.subjectKey,
    status: memory.status,
    errorCode: memory.errorCode,
    checkedAt: memory.checkedAt?.toISOString() ?? null,
    version: {
      ...version,
      generatedAt: version.generatedAt.toISOString(),
      redactedAt: version.redactedAt?.toISOString() ?? null,
    },
  };
}

function decodeMembership(value: unknown): CachedMembership | null {
  const entry = value as Partial<MembershipEntry> | null;
  if (entry?.format !== FORMAT || !isStringArray(entry.teams)) return null;
  return { teams: entry.teams };
}

function decodeMemory(value: unknown, subjectKey: string): ServedMemory | null {
  const entry = value as Partial<MemoryEntry> | null;
  const version = entry?.version;
  if (entry?.format !== FORMAT || entry.subjectKey !== subjectKey || !version) return null;
  if (typeof version.id !== "string" || typeof version.markdown !== "string") return null;
  if (!Array.isArray(version.statements) || !Array.isArray(version.citations)) return null;
  const generatedAt = dateOf(version.generatedAt);
  if (!generatedAt) return null;
  return {
    subjectKey,
    status: MEMORY_STATUSES.includes(entry.status as MemoryStatus) ? (entry.status as MemoryStatus) : "ready",
    errorCode: isRunErrorCode(entry.errorCode) ? entry.errorCode : null,
    checkedAt: dateOf(entry.checkedAt),
    version: {
      id: version.id,
      markdown: version.markdown,
      statements: version.statements,
      generatedAt,
      redactedAt: dateOf(version.redactedAt),
      citations: version.citations,
    },
  };
}

function dateOf(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === "string");

const nameOf = (error: unknown) => (error instanceof Error ? error.name : "unknown");
