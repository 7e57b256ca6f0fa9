import type { ContentBlock, LlmClient, LlmMessage, LlmResponse } from "../domain/llm";
import { BudgetExhausted, type BudgetName, meteredCall, type RunMeter } from "./budget";
import type { ResearchTools, ToolCall } from "./tools";

/** Output tokens the generator may spend on one turn: room for a full memory block. */
export const GENERATOR_MAX_OUTPUT_TOKENS = 8192;

/** What the model's answer asks for next. */
export type Step = { kind: "tool_calls"; calls: ToolCall[] } | { kind: "final"; text: string };

/** Tool calls if the answer has any (whatever its stop reason), else the answer's text as the final answer. */
export function nextStep(response: LlmResponse): Step {
  const calls: ToolCall[] = [];
  const texts: string[] = [];
  for (const block of response.content) {
    if (block.type === "tool_call") calls.push({ id: block.id, name: block.name, input: block.input });
    else if (block.type === "text") texts.push(block.text);
  }
  return calls.length > 0 ? { kind: "tool_calls", calls } : { kind: "final", text: texts.join("\n") };
}

export interface LoopDeps {
  llm: LlmClient;
  tools: ResearchTools;
  meter: RunMeter;
  signal?: AbortSignal;
  /** The provider's end-user identifier for this run (see LlmRequest.endUserId). */
  endUserId?: string;
}

/** How a research loop ends. */
export type LoopOutcome = { kind: "final"; text: string } | { kind: "budget_exhausted"; budget: BudgetName };

/**
 * Runs the generator until it gives a final answer or a budget is exhausted, appending every turn to
 * `messages` (a revision continues the same conversation). Every iteration spends a turn, so the loop
 * ends within maxTurns. LLM errors and aborts propagate to the caller.
 */
export async function runAgentLoop(
  deps: LoopDeps,
  system: string,
  messages: LlmMessage[],
): Promise<LoopOutcome> {
  try {
    return { kind: "final", text: await research(deps, system, messages) };
  } catch (error) {
    if (error instanceof BudgetExhausted) return { kind: "budget_exhausted", budget: error.budget };
    throw error;
  }
}

async function research(deps: LoopDeps, system: string, messages: LlmMessage[]): Promise<string> {
  const { llm, tools, meter, signal } = deps;
  for (;;) {
    meter.assertCanTakeTurn();
    const response = await meteredCall(
      llm,
      {
        system,
        messages,
        tools: tools.definitions,
        toolChoice: { type: "auto" },
        maxTokens: GENERATOR_MAX_OUTPUT_TOKENS,
        endUserId: deps.endUserId,
      },
      meter,
      signal,
    );
    meter.turns += 1;
    messages.push({ role: "assistant", content: nonEmpty(response.content) });
    const step = nextStep(response);
    if (step.kind === "final") return step.text;
    meter.spendToolCalls(step.calls.length);
    const results: ContentBlock[] = [];
    for (const call of step.calls) results.push(await tools.execute(call));
    messages.push({ role: "user", content: results });
  }
}

/** Providers reject an assistant turn without content; an empty answer is kept as a visible placeholder. */
function nonEmpty(content: ContentBlock[]): ContentBlock[] {
  return content.length > 0 ? content : [{ type: "text", text: "(empty answer)" }];
}
