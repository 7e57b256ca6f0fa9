import type {
  ContentBlock,
  LlmClient,
  LlmError,
  LlmRequest,
  LlmResponse,
  StopReason,
} from "../../../src/domain/llm";

/** The request as the client saw it at call time (the loop keeps appending to its messages array). */
export type RecordedRequest = Omit<LlmRequest, "signal">;

/** One scripted turn: a response, an error to throw, or a function of the request (for side effects). */
export type ScriptStep =
  | LlmResponse
  | LlmError
  | ((request: RecordedRequest, call: number) => LlmResponse | Promise<LlmResponse>);

/** A test double of the LLM port: a queue of responses, the recorded requests, and assertComplete(). */
export class ScriptedLlm implements LlmClient {
  readonly calls: RecordedRequest[] = [];
  private readonly steps: ScriptStep[];

  constructor(
    readonly model: string,
    steps: ScriptStep[] = [],
  ) {
    this.steps = [...steps];
  }

  push(...steps: ScriptStep[]): this {
    this.steps.push(...steps);
    return this;
  }

  get remaining(): number {
    return this.steps.length;
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    const { signal: _signal, ...rest } = request;
    const recorded = structuredClone(rest);
    this.calls.push(recorded);
    const step = this.steps.shift();
    if (step === undefined) {
      throw new Error(`ScriptedLlm ${this.model}: no scripted response left for call ${this.calls.length}`);
    }
    if (step instanceof Error) throw step;
    return typeof step === "function" ? step(recorded, this.calls.length) : structuredClone(step);
  }

  /** Throws when scripted turns were left unused. */
  assertComplete(): void {
    if (this.steps.length > 0) {
      throw new Error(`ScriptedLlm ${this.model}: ${this.steps.length} scripted response(s) never requested`);
    }
  }
}

const DEFAULT_USAGE = { inputTokens: 100, outputTokens: 20 };

type Usage = LlmResponse["usage"];

let nextId = 0;

/** Builders for scripted responses. */
export const reply = {
  text(text: string, usage: Usage = DEFAULT_USAGE, stopReason: StopReason = "end_turn"): LlmResponse {
    return { content: [{ type: "text", text }], stopReason, usage };
  },
  tools(calls: { name: string; input: unknown; id?: string }[], usage: Usage = DEFAULT_USAGE): LlmResponse {
    const content: ContentBlock[] = calls.map((c) => ({
      type: "tool_call",
      id: c.id ?? `call_${++nextId}`,
      name: c.name,
      input: c.input,
    }));
    return { content, stopReason: "tool_use", usage };
  },
  verdict(input: unknown, usage: Usage = DEFAULT_USAGE): LlmResponse {
    return {
      content: [{ type: "tool_call", id: `verdict_${++nextId}`, name: "submit_verdict", input }],
      stopReason: "tool_use",
      usage,
    };
  },
  memory(lines: string, usage: Usage = DEFAULT_USAGE): LlmResponse {
    return reply.text(`<memory>\n${lines.trim()}\n</memory>`, usage);
  },
};

/** The tool results sent back in a recorded request (its last user message), parsed. */
export function toolResultsOf(
  request: RecordedRequest,
): { content: unknown; isError: boolean; toolCallId: string }[] {
  const last = request.messages.at(-1);
  if (last?.role !== "user") return [];
  return last.content.flatMap((b) =>
    b.type === "tool_result"
      ? [{ content: JSON.parse(b.content) as unknown, isError: b.isError === true, toolCallId: b.toolCallId }]
      : [],
  );
}
