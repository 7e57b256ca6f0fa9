import type { Clock } from "../domain/clock";
import type { RunStats } from "../domain/generation";
import type { LlmClient, LlmRequest, LlmResponse } from "../domain/llm";
import type { ModelUsage } from "../domain/memory";

/** The bounds of one run. */
export interface Budgets {
  maxTurns: number;
  maxToolCalls: number;
  maxTokens: number;
  wallMs: number;
}
export type BudgetName = "turns" | "tool_calls" | "tokens" | "wall_time";

/** A budget hit: a recorded outcome of the run ("budget_turns", ...), never retried as such. */
export class BudgetExhausted extends Error {
  constructor(readonly budget: BudgetName) {
    super(`the run's ${budget.replace("_", " ")} budget is exhausted`);
    this.name = "BudgetExhausted";
  }

  get code(): `budget_${BudgetName}` {
    return `budget_${this.budget}`;
  }
}

/** The caller's signal fired (e.g. the Durable Object is shutting down). */
export class RunAborted extends Error {
  constructor() {
    super("the run was aborted");
    this.name = "RunAborted";
  }
}

/**
 * Counts what a run spends and says when a budget is exhausted. Turns and tool calls count the generator
 * only; tokens and wall time count the whole run (generator and judge). Wall time is checked before every
 * model call and tool batch, with the injected clock; one call is bounded by the adapter's own timeout.
 */
export class RunMeter {
  private readonly deadline: number;
  turns = 0;
  toolCalls = 0;
  inputTokens = 0;
  outputTokens = 0;
  private readonly usage: ModelUsage = {};

  constructor(
    private readonly clock: Clock,
    readonly budgets: Budgets,
  ) {
    this.deadline = clock.now().getTime() + budgets.wallMs;
  }

  /** Throws when the run may not make another model call. */
  assertCanCall(): void {
    if (this.inputTokens + this.outputTokens >= this.budgets.maxTokens) throw new BudgetExhausted("tokens");
    this.assertTime();
  }

  assertTime(): void {
    if (this.clock.now().getTime() >= this.deadline) throw new BudgetExhausted("wall_time");
  }

  /** Throws when the generator may not take another turn. */
  assertCanTakeTurn(): void {
    if (this.turns >= this.budgets.maxTurns) throw new BudgetExhausted("turns");
    this.assertCanCall();
  }

  /** Throws when `count` more tool calls would go over the budget; otherwise counts them. */
  spendToolCalls(count: number): void {
    if (this.toolCalls + count > this.budgets.maxToolCalls) throw new BudgetExhausted("tool_calls");
    this.assertTime();
    this.toolCalls += count;
  }

  record(model: string, usage: LlmResponse["usage"]): void {
    this.inputTokens += usage.inputTokens;
    this.outputTokens += usage.outputTokens;
    const entry = this.usage[model] ?? { inputTokens: 0, outputTokens: 0, calls: 0 };
    this.usage[model] = entry;
    entry.inputTokens += usage.inputTokens;
    entry.outputTokens += usage.outputTokens;
    entry.calls += 1;
  }

  stats(): RunStats {
    return {
      turns: this.turns,
      toolCalls: this.toolCalls,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      usage: structuredClone(this.usage),
    };
  }
}

/** One model call, metered: budgets checked before, usage recorded after, the caller's signal honoured. */
export async function meteredCall(
  llm: LlmClient,
  request: Omit<LlmRequest, "signal">,
  meter: RunMeter,
  signal?: AbortSignal,
): Promise<LlmResponse> {
  if (signal?.aborted) throw new RunAborted();
  meter.assertCanCall();
  try {
    const response = await llm.complete(signal ? { ...request, signal } : request);
    meter.record(llm.model, response.usage);
    return response;
  } catch (error) {
    if (signal?.aborted) throw new RunAborted();
    throw error;
  }
}
