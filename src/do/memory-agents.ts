/** MemoryAgents over the MEMORY_AGENT namespace: one object per subject, addressed by name. */
import type { MemoryAgents } from "../memory/memory-agents";
import type { MemoryAgent } from "./memory-agent";

export const agentName = (subjectId: string) => `user:${subjectId}`;

export function createMemoryAgents(namespace: DurableObjectNamespace<MemoryAgent>): MemoryAgents {
  const stub = (subjectId: string) => namespace.get(namespace.idFromName(agentName(subjectId)));
  return {
    requestRefresh: (subjectId, reason, options) =>
      stub(subjectId).requestRefresh(subjectId, reason, options),
    forceRefresh: (subjectId) => stub(subjectId).forceRefresh(subjectId),
    status: (subjectId) => stub(subjectId).status(),
    forget: (subjectId) => stub(subjectId).forget(),
  };
}
