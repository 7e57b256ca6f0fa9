/** What the workspace store tells the memory side when material changes. Implemented in db/ + do/. */
export interface MemoryEvents {
  /** Items these subjects may see were created, updated or deleted. */
  materialChanged(subjectIds: string[]): Promise<void>;
}
