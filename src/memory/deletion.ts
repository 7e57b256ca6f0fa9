/**
 * Deletion that reaches derived data. Deleting an item redacts, in the same atomic write, every memory
 * version that cited it, then asks the affected subjects' agents for a fresh memory. Erasing a subject
 * drops its agent's state first (so no run in flight can write again), then every row of theirs.
 */
import type { Clock } from "../domain/clock";
import type { MemoryEvents } from "../domain/memory-events";
import type { MemoryAgents } from "./memory-agents";
import type { MemoryStore } from "./memory-store";

export interface DeletionDeps {
  memoryStore: MemoryStore;
  memoryAgents: MemoryAgents;
  memoryEvents: MemoryEvents;
  clock: Clock;
  defer(work: Promise<unknown>): Promise<void>;
}

/** Deletes one of the owner's items with redaction; false if the owner has no such item. */
export async function deleteItemWithRedaction(
  deps: DeletionDeps,
  ownerId: string,
  itemId: string,
): Promise<boolean> {
  const result = await deps.memoryStore.deleteItem(ownerId, itemId, deps.clock.now());
  if (!result) return false;
  await afterRemoval(deps, result, null);
  return true;
}

/** DELETE /me: the caller's items, memory, versions, runs and agent state. */
export async function eraseSubject(deps: DeletionDeps, subjectId: string): Promise<void> {
  await deps.memoryAgents.forget(subjectId);
  const result = await deps.memoryStore.eraseSubject(subjectId, deps.clock.now());
  await afterRemoval(deps, result, subjectId);
}

async function afterRemoval(
  deps: DeletionDeps,
  result: { visibleTo: string[]; redactedSubjects: string[] },
  erased: string | null,
): Promise<void> {
  const others = (ids: string[]) => [...new Set(ids)].filter((id) => id !== erased);
  await deps.memoryEvents.materialChanged(others([...result.visibleTo, ...result.redactedSubjects]));
  const redacted = others(result.redactedSubjects);
  if (redacted.length > 0) {
    await deps.defer(
      Promise.allSettled(redacted.map((id) => deps.memoryAgents.requestRefresh(id, "delete"))),
    );
  }
}
