/** The memory's model: statements with citations, versions, runs. */
import { MAX_USER_ID_LENGTH, MAX_WORKSPACE_ID_LENGTH } from "./workspaces";

export interface Statement {
  section: string;
  text: string;
  /** Ids of the items this statement cites. Never empty in an accepted memory. */
  itemIds: string[];
  /**
   * Stable while the statement is carried unchanged (same text, same cited items) from version to version;
   * set when a version is written (domain/statements.ts). Absent only on a draft.
   */
  id?: string;
  /** When a version first held it (ISO 8601); carried with the id. Absent only on a draft. */
  firstStated?: string;
  /**
   * The people its cited items name (never the subject herself), resolved by the service when the version
   * was generated, not by the model: their person ids and names as the subject's view had them then.
   */
  people?: StatementPerson[];
}

export interface StatementPerson {
  id: string;
  name: string;
}

/**
 * A statement taken out of a version after the version was written: redacted (its subject lost access to
 * a cited item) or dismissed by the subject. No text: a redacted statement's words may come from an item
 * its subject can no longer see.
 */
export interface RemovedStatement {
  id: string;
  section: string;
  reason: "redacted" | "dismissed";
  /** ISO 8601. */
  at: string;
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

/**
 * Whose memory it is (a user or a team) is the "subject" in every layer, addressed by its key
 * (domain/workspaces.ts): a workspace id, a separator and a user id at most.
 */
export const MAX_SUBJECT_KEY_LENGTH = MAX_WORKSPACE_ID_LENGTH + 1 + MAX_USER_ID_LENGTH;

export const isSubjectKey = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= MAX_SUBJECT_KEY_LENGTH;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);

/** The phases of a subject's MemoryAgent (see memory/run-schedule.ts). */
export const AGENT_PHASES = ["idle", "scheduled", "running", "backoff", "exhausted"] as const;
export type AgentPhase = (typeof AGENT_PHASES)[number];

/** What the memories row says about the subject's memory. */
export const MEMORY_STATUSES = ["none", "generating", "retrying", "ready", "failed", "unavailable"] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

/** Why a run did not produce a memory: the ledger's error_code, the agent's last error. */
export const RUN_ERROR_CODES = [
  // the provider (LlmError codes)
  "llm_rate_limited",
  "llm_overloaded",
  "llm_server_error",
  "llm_timeout",
  "llm_connection",
  "llm_auth",
  "llm_bad_request",
  "llm_bad_response",
  // budgets (not retryable)
  "budget_turns",
  "budget_tool_calls",
  "budget_tokens",
  "budget_wall_time",
  // the subject's daily usage budget (DAILY_RUN_BUDGET_USD, DAILY_TOKEN_BUDGET): tried again the next day
  "budget_exhausted",
  // the draft and the judge
  "no_memory_block",
  "judge_invalid_verdict",
  "judge_rejected",
  // the run itself
  "aborted",
  "run_interrupted",
  "cited_item_deleted",
  "statement_dismissed",
  "database_unavailable",
  "internal_error",
  // generation cannot happen at all
  "llm_not_configured",
  "generation_unavailable",
] as const;
export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

/** Codes meaning no generator can run (configuration), not that a run went wrong. */
export const UNAVAILABLE_CODES: readonly RunErrorCode[] = ["llm_not_configured", "generation_unavailable"];

export const isRunErrorCode = (value: unknown): value is RunErrorCode =>
  typeof value === "string" && (RUN_ERROR_CODES as readonly string[]).includes(value);

/** Why the checks or the judge dropped a statement from a draft that was then accepted without it. */
export interface DroppedStatement {
  section: string;
  text: string;
  reason: string;
  /** Who dropped it: the deterministic checks, the judge (unsupported or superseded), or a dismissal. */
  cause?: "checks" | "unsupported" | "superseded" | "dismissed";
  /** The id of the previous memory's statement it restated word for word, if any. */
  statementId?: string;
  /** For a superseded statement: the newer item that supersedes it. */
  supersededBy?: string;
}

/**
 * A statement the judge found superseded by a newer item on a refresh (recorded in the run's ledger row):
 * dropped by salvage, or sent back to the generator with the revision feedback.
 */
export interface SupersededStatement {
  /** The previous memory's statement it was (carried word for word), or null. */
  statementId: string | null;
  section: string;
  text: string;
  /** The newer item that supersedes it. */
  byItemId: string;
  handled: "dropped" | "revised";
}

/** What salvage kept and dropped of a draft (recorded in the ledger as `salvaged`). */
export interface Salvage {
  kept: number;
  dropped: number;
  statements: DroppedStatement[];
}

/** Why a statement a version held is not in a later one (a diff's `removed[].reason`). */
export const REMOVAL_REASONS = ["superseded", "unsupported", "dropped", "redacted", "dismissed"] as const;
export type RemovalReason = (typeof REMOVAL_REASONS)[number];

/** How GET /memory serves a memory: one markdown document, or its statements as JSON. */
export const MEMORY_FORMATS = ["markdown", "json"] as const;
export type MemoryFormat = (typeof MEMORY_FORMATS)[number];

/** The longest GET /memory holds a 202 for the first memory (`?wait=`). */
export const MAX_WAIT_SECONDS = 30;
