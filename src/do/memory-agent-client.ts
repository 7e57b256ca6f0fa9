/** MemoryAgents over the MEMORY_AGENT namespace: one object per subject, addressed by name. */
import type { Clock } from "../domain/clock";
import type { MemoryAgents } from "../memory/memory-agents-port";
import type { MemoryAgent } from "./memory-agent";

export const agentName = (subjectKey: string) => `user:${subjectKey}`;

/** Every request is stamped with when it was sent, so an erase that lands first can refuse it. */
export function createMemoryAgentClient(
  namespace: DurableObjectNamespace<MemoryAgent>,
  clock: Clock,
): MemoryAgents {
  const stub = (subjectKey: string) => namespace.get(namespace.idFromName(agentName(subjectKey)));
  const sentAt = () => clock.now().getTime();
  return {
    requestRefresh: (subjectKey, reason, options) =>
      stub(subjectKey).requestRefresh(subjectKey, reason, {
        ...options,
        sentAt: options?.sentAt ?? sentAt(),
      }),
    forceRefresh: (subjectKey) => stub(subjectKey).forceRefresh(subjectKey, sentAt()),
    status: (subjectKey) => stub(subjectKey).status(),
    forget: (subjectKey, erasedAt) => stub(subjectKey).forget(erasedAt),
  };
}
