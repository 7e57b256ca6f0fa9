import type {
  ModelUsage,
  RunErrorCode,
  RunTrigger,
  Salvage,
  Statement,
  SupersededStatement,
  Verdict,
} from "./memory";
import type { Dismissal } from "./statements";

/** The port between the subject's Durable Object (orchestration) and generation (agent loop + judge). */

export interface PreviousMemory {
  versionId: string;
  markdown: string;
  statements: Statement[];
  generatedAt: Date;
}

export interface GenerationRequest {
  subjectKey: string;
  runId: string;
  trigger: RunTrigger;
  previous: PreviousMemory | null;
  /** What the subject dismissed: the run must not state it again. */
  dismissed?: readonly Dismissal[];
}

export interface RunStats {
  turns: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  usage: ModelUsage;
}

export type GenerationResult =
  | {
      outcome: "accepted";
      statements: Statement[];
      /** Statements dropped from the draft (with why) before it was accepted; null when none was. */
      salvaged: Salvage | null;
      /** Statements of the previous memory the judge found superseded by newer items (none when absent). */
      superseded?: SupersededStatement[];
      generatorModel: string;
      judgeModel: string;
      verdict: Verdict;
      stats: RunStats;
    }
  | { outcome: "rejected"; verdict: Verdict; reason: string; stats: RunStats }
  | {
      outcome: "failed";
      errorCode: RunErrorCode;
      errorMessage: string;
      retryable: boolean;
      /** The provider asked us to wait at least this long (Retry-After) before trying again. */
      retryAfterMs?: number;
      stats: RunStats;
    };

export interface Generator {
  generate(request: GenerationRequest, signal?: AbortSignal): Promise<GenerationResult>;
}

export const emptyStats = (): RunStats => ({
  turns: 0,
  toolCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  usage: {},
});

/** Whether a generator can run with this configuration: decided once, in the composition root. */
export type GeneratorSource =
  | { kind: "ready"; generator: Generator }
  | { kind: "unavailable"; code: "llm_not_configured" | "generation_unavailable"; message: string };
