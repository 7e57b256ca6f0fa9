/**
 * LlmClient over OpenAI Chat Completions (official SDK) with function calling. The base URL is
 * configurable, so any OpenAI-compatible server (Ollama, vLLM, ...) works.
 */
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions/completions";
import {
  type ContentBlock,
  INVALID_TOOL_INPUT,
  type LlmClient,
  LlmError,
  type LlmMessage,
  type LlmRequest,
  type LlmResponse,
  type StopReason,
} from "../domain/llm";
import { isPlainObject, parseToolArguments, toolInputSchema } from "./json-schema";
import { OPENAI_ERROR_CLASSES, openAiSdk } from "./openai-sdk";
import { translateSdkError } from "./sdk-errors";

export interface OpenAiClientOptions {
  model: string;
  apiKey: string;
  /** Unset for api.openai.com; e.g. http://127.0.0.1:11434/v1 for Ollama. */
  baseUrl?: string;
  timeoutMs: number;
}

export function createOpenAiClient(options: OpenAiClientOptions): LlmClient {
  const sdk = openAiSdk(options);
  // api.openai.com wants max_completion_tokens (reasoning models reject max_tokens); compatible servers
  // (Ollama, vLLM) have long understood max_tokens.
  const tokenLimitField = options.baseUrl === undefined ? "max_completion_tokens" : "max_tokens";
  return {
    model: `openai:${options.model}`,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      let completion: ChatCompletion;
      try {
        completion = await sdk.chat.completions.create(toParams(options.model, request, tokenLimitField), {
          signal: request.signal,
        });
      } catch (err) {
        throw translateSdkError(err, "openai", OPENAI_ERROR_CLASSES);
      }
      return fromCompletion(completion);
    },
  };
}

function toParams(
  model: string,
  request: LlmRequest,
  tokenLimitField: "max_tokens" | "max_completion_tokens",
): ChatCompletionCreateParamsNonStreaming {
  const messages: ChatCompletionMessageParam[] = [{ role: "system", content: request.system }];
  for (const message of request.messages) messages.push(...toMessageParams(message));
  const params: ChatCompletionCreateParamsNonStreaming = { model, messages };
  params[tokenLimitField] = request.maxTokens;
  if (request.endUserId) params.safety_identifier = request.endUserId;
  if (request.tools && request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: toolInputSchema(tool.inputSchema),
      },
    }));
    if (request.toolChoice) params.tool_choice = toToolChoice(request.toolChoice);
  }
  return params;
}

function toToolChoice(choice: NonNullable<LlmRequest["toolChoice"]>): ChatCompletionToolChoiceOption {
  return choice.type === "tool" ? { type: "function", function: { name: choice.name } } : "auto";
}

/** One port message can become several chat messages: tool results are `tool` messages of their own. */
function toMessageParams(message: LlmMessage): ChatCompletionMessageParam[] {
  const text = message.content
    .filter((b): b is Extract<ContentBlock, { type: "text" }> => b.type === "text")
    .map((b) => b.text)
    .join("\n\n");
  if (message.role === "assistant") {
    const toolCalls: ChatCompletionMessageFunctionToolCall[] = message.content
      .filter((b): b is Extract<ContentBlock, { type: "tool_call" }> => b.type === "tool_call")
      .map((b) => ({
        id: b.id,
        type: "function",
        function: { name: b.name, arguments: rawArguments(b.input) },
      }));
    return [
      {
        role: "assistant",
        content: text === "" ? null : text,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
    ];
  }
  const out: ChatCompletionMessageParam[] = [];
  // Tool messages must directly follow the assistant message that made the calls.
  for (const block of message.content) {
    if (block.type === "tool_result") {
      out.push({ role: "tool", tool_call_id: block.toolCallId, content: block.content });
    }
  }
  if (text !== "") out.push({ role: "user", content: text });
  return out;
}

/** Replays a call's arguments as the model sent them, including invalid ones. */
function rawArguments(input: unknown): string {
  if (isPlainObject(input)) {
    const raw = input[INVALID_TOOL_INPUT];
    if (typeof raw === "string" && Object.keys(input).length === 1) return raw;
  }
  return JSON.stringify(input ?? {});
}

function fromCompletion(completion: ChatCompletion): LlmResponse {
  const choice = completion.choices[0];
  if (!choice) throw new LlmError("llm_bad_response", "openai: the completion has no choices", true);
  const content: ContentBlock[] = [];
  if (choice.message.content) content.push({ type: "text", text: choice.message.content });
  for (const call of choice.message.tool_calls ?? []) {
    if (call.type !== "function") continue;
    content.push({
      type: "tool_call",
      id: call.id,
      name: call.function.name,
      input: parseToolArguments(call.function.arguments, INVALID_TOOL_INPUT),
    });
  }
  return {
    content,
    stopReason: mapFinishReason(choice.finish_reason, content),
    usage: {
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    },
  };
}

function mapFinishReason(reason: string | null | undefined, content: ContentBlock[]): StopReason {
  switch (reason) {
    case "stop":
      // Some compatible servers say "stop" even when the message carries tool calls.
      return content.some((b) => b.type === "tool_call") ? "tool_use" : "end_turn";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "length":
      return "max_tokens";
    default:
      return "other";
  }
}
