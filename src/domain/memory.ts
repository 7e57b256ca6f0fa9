/** The memory's model: statements with citations, versions, runs. */

export interface Statement {
  section: string;
  text: string;
  /** Ids of the items this statement cites. Never empty in an accepted memory. */
  itemIds: string[];
}

export interface Verdict {
  accepted: boolean;
  reason: string;
  /** Indexes (into the statements) the judge found unsupported by the cited items. */
  unsupported: number[];
}

export type ModelUsage = Record<string, { inputTokens: number; outputTokens: number; calls: number }>;

export const RUN_TRIGGERS = ["read", "sweep", "ingest", "manual", "delete"] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const RUN_STATUSES = ["queued", "running", "succeeded", "rejected", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
