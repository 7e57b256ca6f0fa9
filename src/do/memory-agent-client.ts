/** MemoryAgents over the MEMORY_AGENT namespace: one object per subject, addressed by name. */
import type { Clock } from "../domain/clock";
import type { MemoryAgents } from "../memory/memory-agents-port";
import type { MemoryAgent } from "./memory-agent";

export const agentName = (subjectId: string) => `user:${subjectId}`;

/** Every request is stamped with when it was sent, so an erase that lands first can refuse it. */
export function createMemoryAgentClient(
  namespace: DurableObjectNamespace<MemoryAgent>,
  clock: Clock,
): MemoryAgents {
  const stub = (subjectId: string) => namespace.get(namespace.idFromName(agentName(subjectId)));
  const sentAt = () => clock.now().getTime();
  return {
    requestRefresh: (subjectId, reason, options) =>
      stub(subjectId).requestRefresh(subjectId, reason, { ...options, sentAt: options?.sentAt ?? sentAt() }),
    forceRefresh: (subjectId) => stub(subjectId).forceRefresh(subjectId, sentAt()),
    status: (subjectId) => stub(subjectId).status(),
    forget: (subjectId, erasedAt) => stub(subjectId).forget(erasedAt),
  };
}
