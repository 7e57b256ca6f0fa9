/**
 * The edge cache in memory, for domain tests: entries kept as the KV adapter would (a copy, not the caller's
 * object), every operation recorded, and a hook run before each put lands (to interleave a concurrent
 * change exactly there).
 */
import type { CachedMembership, MemoryCache, ServedMemory } from "../../../src/memory/memory-cache";

export class InMemoryMemoryCache implements MemoryCache {
  readonly enabled = true;
  readonly memories = new Map<string, ServedMemory>();
  readonly memberships = new Map<string, CachedMembership>();
  readonly ttls = new Map<string, number>();
  readonly operations: string[] = [];
  /** Runs before a put is applied (a concurrent writer acting between the caller's read and its put). */
  beforePut: (() => Promise<void>) | null = null;

  async memory(subjectKey: string): Promise<ServedMemory | null> {
    this.operations.push(`get memory ${subjectKey}`);
    return copy(this.memories.get(subjectKey) ?? null);
  }

  async putMemory(memory: ServedMemory, ttlSeconds: number): Promise<void> {
    await this.beforePut?.();
    this.operations.push(`put memory ${memory.subjectKey}`);
    this.memories.set(memory.subjectKey, copy(memory)!);
    this.ttls.set(`memory ${memory.subjectKey}`, ttlSeconds);
  }

  async deleteMemory(subjectKey: string): Promise<void> {
    this.operations.push(`delete memory ${subjectKey}`);
    this.memories.delete(subjectKey);
  }

  async membership(memberKey: string): Promise<CachedMembership | null> {
    this.operations.push(`get member ${memberKey}`);
    return this.memberships.get(memberKey) ?? null;
  }

  async membershipAndMemory(memberKey: string, subjectKey: string) {
    this.operations.push(`get member ${memberKey} and memory ${subjectKey}`);
    return {
      membership: this.memberships.get(memberKey) ?? null,
      memory: copy(this.memories.get(subjectKey) ?? null),
    };
  }

  async putMembership(memberKey: string, membership: CachedMembership, ttlSeconds: number): Promise<void> {
    await this.beforePut?.();
    this.operations.push(`put member ${memberKey}`);
    this.memberships.set(memberKey, { teams: [...membership.teams] });
    this.ttls.set(`member ${memberKey}`, ttlSeconds);
  }

  async deleteMembership(memberKey: string): Promise<void> {
    this.operations.push(`delete member ${memberKey}`);
    this.memberships.delete(memberKey);
  }
}

/** A structural copy that keeps Dates as Dates (what a JSON round trip through KV gives back). */
function copy<T>(value: T): T {
  return structuredClone(value);
}
