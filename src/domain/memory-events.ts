/** What the workspace store tells the memory side when material changes. Implemented in db/ + do/. */
export interface MemoryEvents {
  /** Items these subjects may see were created, updated or deleted: record it, then tell their agents. */
  materialChanged(subjectIds: string[]): Promise<void>;
  /** The change was already recorded in the same transaction as the items: only tell the agents. */
  notifyAgents(subjectIds: string[]): Promise<void>;
}
