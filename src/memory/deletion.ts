/**
 * Deletion that reaches derived data. Deleting an item redacts, in the same atomic write, every memory
 * version that cited it, then tells the memory side once: material changed for everyone who could see it,
 * and the redacted subjects' agents are asked for a fresh memory ("delete"). Erasing a subject first makes
 * its agent final (no run queued before the erase writes again), then removes every row of theirs. Either
 * way the edge cache entries of the redacted and erased subjects are removed before the request returns. The
 * webhook events these writes recorded in their own transaction (a memory redacted, a subject erased) are
 * handed to the queue after the answer.
 */
import type { Clock } from "../domain/clock";
import type { MemoryEvents } from "../domain/memory-events";
import type { WebhookEvents } from "../domain/webhook-events";
import type { ErasureStore, ItemRemoval, Removal } from "./erasure-store";
import type { MemoryAgents } from "./memory-agents-port";
import { invalidate, type MemoryCache } from "./memory-cache";

export interface DeletionDeps {
  erasure: ErasureStore;
  memoryAgents: MemoryAgents;
  memoryEvents: MemoryEvents;
  memoryCache: MemoryCache;
  webhookEvents: Pick<WebhookEvents, "flush">;
  clock: Clock;
  /** Runs work after the answer (waitUntil). */
  defer(work: Promise<unknown>): Promise<void>;
}

/**
 * DELETE /items/:id: the owner deletes the item, a sharee leaves it; either way with redaction. The
 * outcome says which ("not_found" if the caller cannot see it, "via_team" if only through a team).
 */
export async function removeItemWithRedaction(
  deps: DeletionDeps,
  subjectKey: string,
  itemId: string,
): Promise<ItemRemoval["outcome"]> {
  const result = await deps.erasure.removeItem(subjectKey, itemId, deps.clock.now());
  if (result.outcome === "deleted" || result.outcome === "left")
    await afterRemoval(deps, result.removal, null);
  return result.outcome;
}

/**
 * DELETE /me: the caller's items, memory, versions, runs, agent state and membership (of the workspace,
 * its teams and every share). The agent goes first: once forget() returns, no run of this subject can
 * write, and every write it had in flight has landed, so the database erase that follows removes
 * everything. Their cached admission goes with their cached memory.
 */
export async function eraseSubject(deps: DeletionDeps, subjectKey: string): Promise<void> {
  const erasedAt = deps.clock.now();
  await deps.memoryAgents.forget(subjectKey, erasedAt.getTime());
  const result = await deps.erasure.eraseSubject(subjectKey, erasedAt);
  await afterRemoval(deps, result, subjectKey, [subjectKey]);
}

/**
 * What every access-losing change does after its atomic write (here and in workspace-changes.ts): first the
 * edge cache, so no later read where this request ran is answered from a redacted or erased memory, nor a
 * changed admission (`memberships`); then the material-change notices and the agents' refreshes; then, after
 * the answer, the webhook events the write recorded go to the queue.
 */
export async function afterRemoval(
  deps: Pick<DeletionDeps, "memoryEvents" | "memoryCache" | "webhookEvents" | "defer">,
  result: Removal,
  erased: string | null,
  memberships: string[] = [],
): Promise<void> {
  await invalidate(deps.memoryCache, {
    memories: erased ? [...result.redactedSubjects, erased] : result.redactedSubjects,
    memberships,
  });
  const others = (ids: string[]) => [...new Set(ids)].filter((id) => id !== erased);
  await deps.memoryEvents.materialChanged(
    others([...result.visibleTo, ...result.redactedSubjects]),
    "delete",
    others(result.redactedSubjects),
  );
  if (erased || result.redactedSubjects.length > 0) await deps.defer(deps.webhookEvents.flush());
}
