/** LlmClient over the Anthropic Messages API (official SDK), with tool use. */
import Anthropic, {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Message as SdkMessage,
  StopReason as SdkStopReason,
  ToolChoice,
} from "@anthropic-ai/sdk/resources/messages/messages";
import {
  type ContentBlock,
  INVALID_TOOL_INPUT,
  type LlmClient,
  type LlmMessage,
  type LlmRequest,
  type LlmResponse,
  type StopReason,
} from "../domain/llm";
import { isPlainObject, toolInputSchema } from "./json-schema";
import { translateSdkError } from "./sdk-errors";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

export interface AnthropicClientOptions {
  model: string;
  apiKey: string;
  baseUrl?: string;
  timeoutMs: number;
}

const ERROR_CLASSES = {
  APIError,
  APIUserAbortError,
  APIConnectionTimeoutError,
  APIConnectionError,
  BaseError: AnthropicError,
};

export function createAnthropicClient(options: AnthropicClientOptions): LlmClient {
  const sdk = new Anthropic({
    apiKey: options.apiKey,
    // Explicit, so the SDK never falls back to process.env (populated from bindings under nodejs_compat).
    baseURL: options.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL,
    timeout: options.timeoutMs,
    // The subject's Durable Object owns retries, with backoff and a ledger entry per attempt.
    maxRetries: 0,
  });
  return {
    model: `anthropic:${options.model}`,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      let message: SdkMessage;
      try {
        message = await sdk.messages.create(toParams(options.model, request), { signal: request.signal });
      } catch (err) {
        throw translateSdkError(err, "anthropic", ERROR_CLASSES);
      }
      return fromMessage(message);
    },
  };
}

function toParams(model: string, request: LlmRequest): MessageCreateParamsNonStreaming {
  const params: MessageCreateParamsNonStreaming = {
    model,
    max_tokens: request.maxTokens,
    system: request.system,
    messages: request.messages.map(toMessageParam),
  };
  if (request.endUserId) params.metadata = { user_id: request.endUserId };
  if (request.tools && request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: toolInputSchema(tool.inputSchema),
    }));
    if (request.toolChoice) params.tool_choice = toToolChoice(request.toolChoice);
  }
  return params;
}

function toToolChoice(choice: NonNullable<LlmRequest["toolChoice"]>): ToolChoice {
  return choice.type === "tool" ? { type: "tool", name: choice.name } : { type: "auto" };
}

function toMessageParam(message: LlmMessage): MessageParam {
  const content: ContentBlockParam[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      // The API rejects empty text blocks.
      if (block.text !== "") content.push({ type: "text", text: block.text });
    } else if (block.type === "tool_call") {
      content.push({
        type: "tool_use",
        id: block.id,
        name: block.name,
        input: isPlainObject(block.input) ? block.input : {},
      });
    } else {
      content.push({
        type: "tool_result",
        tool_use_id: block.toolCallId,
        content: block.content,
        ...(block.isError ? { is_error: true } : {}),
      });
    }
  }
  return { role: message.role, content };
}

function fromMessage(message: SdkMessage): LlmResponse {
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      content.push({ type: "text", text: block.text });
    } else if (block.type === "tool_use") {
      // The API sends parsed JSON; anything but an object is surfaced as an invalid call, never thrown.
      const input = isPlainObject(block.input)
        ? block.input
        : { [INVALID_TOOL_INPUT]: JSON.stringify(block.input) ?? "" };
      content.push({ type: "tool_call", id: block.id, name: block.name, input });
    }
    // Other block kinds (thinking, server tools) carry nothing the loop uses.
  }
  const usage = message.usage;
  return {
    content,
    stopReason: mapStopReason(message.stop_reason),
    usage: {
      inputTokens:
        usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
      outputTokens: usage.output_tokens,
    },
  };
}

function mapStopReason(reason: SdkStopReason | null): StopReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "end_turn";
    case "tool_use":
      return "tool_use";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    default:
      return "other";
  }
}
