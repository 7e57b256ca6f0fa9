/** A hand-written fake Generator driven by a script of steps. */
import {
  emptyStats,
  type GenerationRequest,
  type GenerationResult,
  type Generator,
  type RunStats,
} from "../../../src/domain/generation";
import type { RunErrorCode, Statement } from "../../../src/domain/memory";

export type Step =
  | { kind: "accept"; statements: Statement[]; stats?: RunStats }
  | { kind: "fail"; code: RunErrorCode; retryable: boolean }
  | { kind: "reject"; reason: string }
  /** Waits until release() is called, then follows the next step. */
  | { kind: "block" };

/**
 * A Generator driven by a script of steps; records every request. A blocking step waits for release(),
 * which must be called inside the agent (see releaseGenerator): promises do not cross objects.
 */
export class FakeGenerator implements Generator {
  readonly requests: GenerationRequest[] = [];
  /** Runs whose blocked step ended because their signal fired. */
  readonly abortedRuns: string[] = [];
  private readonly script: Step[];
  private released = false;
  private wake: (() => void) | null = null;

  constructor(...steps: Step[]) {
    this.script = steps;
  }

  push(...steps: Step[]): void {
    this.script.push(...steps);
  }

  release(): void {
    this.released = true;
    this.wake?.();
  }

  async generate(request: GenerationRequest, signal?: AbortSignal): Promise<GenerationResult> {
    this.requests.push(request);
    let step = this.script.shift();
    if (step?.kind === "block") {
      if (!this.released) {
        // Like a real generator, an abort ends the wait (as a retryable "aborted" failure).
        const aborted = await new Promise<boolean>((resolve) => {
          this.wake = () => resolve(false);
          signal?.addEventListener("abort", () => resolve(true), { once: true });
        });
        if (aborted) {
          this.abortedRuns.push(request.runId);
          return {
            outcome: "failed",
            errorCode: "aborted",
            errorMessage: "the run was aborted",
            retryable: true,
            stats: emptyStats(),
          };
        }
      }
      this.released = false;
      this.wake = null;
      step = this.script.shift();
    }
    if (!step) throw new Error("FakeGenerator: no step left in the script");
    switch (step.kind) {
      case "accept":
        return {
          outcome: "accepted",
          statements: step.statements,
          salvaged: null,
          generatorModel: "fake:generator",
          judgeModel: "fake:judge",
          verdict: { accepted: true, reason: "supported", unsupported: [] },
          stats: step.stats ?? { ...emptyStats(), turns: 2, toolCalls: 3 },
        };
      case "fail":
        return {
          outcome: "failed",
          errorCode: step.code,
          errorMessage: `fake ${step.code}`,
          retryable: step.retryable,
          stats: emptyStats(),
        };
      case "reject":
        return {
          outcome: "rejected",
          verdict: { accepted: false, reason: step.reason, unsupported: [0] },
          reason: step.reason,
          stats: emptyStats(),
        };
      default:
        throw new Error("FakeGenerator: two blocking steps in a row");
    }
  }
}
