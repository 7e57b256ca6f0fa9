/**
 * What the eval observed of one subject through the API: its memories (the first, full one and the one
 * after the refresh batch), the items they cite as the subject sees them, the drafts the generator wrote,
 * and each run's cost from the runs ledger. Scoring (score.ts) is a pure function of this and the dataset.
 */
import type { EvalSubjectRef } from "../../fixtures/demo/eval-types";

export interface ObservedStatement {
  section: string;
  text: string;
  /** Ids of the cited items. */
  citations: string[];
  /** The statement's id as the service serves it (stable while it is carried unchanged). */
  id?: string;
}

/** A cited item as the subject reads it (GET /items/:id); `visible: false` when the subject got a 404. */
export interface CitedItem {
  id: string;
  visible: boolean;
  title: string;
  body: string;
}

/** One run's cost, from the runs ledger (GET /memory/runs). */
export interface RunCost {
  status: string;
  turns: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Per model ("provider:model"): tokens and calls. */
  usage: Record<string, { inputTokens: number; outputTokens: number; calls: number }>;
  wallMs: number;
  /** The embedding calls the run made (counted by the eval's proxy; the ledger does not record them). */
  embeddings?: EmbeddingUse;
}

/** Embedding calls (every request, whatever its answer) and the input tokens the answers reported. */
export interface EmbeddingUse {
  calls: number;
  inputTokens: number;
}

export interface ObservedPhase {
  /** null when no memory was accepted (the run failed or was rejected). */
  statements: ObservedStatement[] | null;
  run: RunCost | null;
  /** The final answers the generator wrote during the run (each holding a <memory> block), in order. */
  drafts: string[];
}

export interface SubjectObservation {
  subject: EvalSubjectRef;
  full: ObservedPhase;
  refreshed: ObservedPhase;
  /** Every item cited by either memory, by id. */
  items: Record<string, CitedItem>;
  /** The freshness scenarios after the refresh (scenarios.ts); absent when they were not run. */
  scenarios?: ScenarioObservation;
}

/** What the two scenarios after the refresh observed. */
export interface ScenarioObservation {
  /** Statements contradicted by a newer item replying to (or @-mentioning) an item they cite. */
  contradicted: { text: string; via: "reply" | "mention"; stillStated: boolean }[];
  /** The run after the contradicting items. */
  contradictionRun: RunCost | null;
  /** The dismissed statement, or null when no statement qualified. */
  dismissed: { text: string; absentAfter: boolean; restatedInDrafts: boolean } | null;
  /** The run after the dismissal. */
  dismissalRun: RunCost | null;
}

/** One workspace item with what decides who may see it (for the privacy check). */
export interface WorkspaceItem {
  owner: string;
  sharedWith: string[];
  title: string;
  body: string;
}
