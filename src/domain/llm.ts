/** The provider-neutral LLM port. Adapters (llm/anthropic.ts, llm/openai.ts) translate to and from the SDKs. */

/** A configured model: `provider:model`. */
export type ModelRef = { provider: "anthropic" | "openai"; model: string };

/** The LLM settings: which models generate and judge, and how each provider is reached. */
export interface LlmSettings {
  generator?: ModelRef;
  judge?: ModelRef;
  anthropic: { apiKey?: string; baseUrl?: string };
  openai: { apiKey?: string; baseUrl?: string };
  timeoutMs: number;
  /** The models are the fake LLM of `npm run dev -- --fake-llm` (LLM_FAKE): output is marked as such. */
  fake?: boolean;
}

export type ContentBlock =
  | { type: "text"; text: string }
  /**
   * `input` is the parsed JSON object of the call's arguments. When the model sent arguments that are not
   * a JSON object (malformed JSON, or a string/array/number), adapters do not throw: `input` is
   * `{ [INVALID_TOOL_INPUT]: "<the raw arguments text>" }`, so the loop can answer with an error result.
   * Sent back in the history, such a call is replayed as is (OpenAI: with its raw arguments text).
   */
  | { type: "tool_call"; id: string; name: string; input: unknown }
  | { type: "tool_result"; toolCallId: string; content: string; isError?: boolean };

/** Key of the `input` of a tool call whose arguments were not a JSON object (see ContentBlock). */
export const INVALID_TOOL_INPUT = "__invalid_json";

export interface LlmMessage {
  role: "user" | "assistant";
  content: ContentBlock[];
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the input object (derived from the tool's zod schema). */
  inputSchema: Record<string, unknown>;
}

export interface LlmRequest {
  system: string;
  messages: LlmMessage[];
  tools?: ToolDefinition[];
  /** Force a specific tool (used for the judge's structured verdict). */
  toolChoice?: { type: "auto" } | { type: "tool"; name: string };
  maxTokens: number;
  signal?: AbortSignal;
  /**
   * An opaque id of the end user the request is made for, which both providers ask for to detect abuse
   * (Anthropic's metadata.user_id, OpenAI's safety_identifier): a hash, never the id itself.
   */
  endUserId?: string;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "other";

export interface LlmResponse {
  content: ContentBlock[];
  stopReason: StopReason;
  usage: { inputTokens: number; outputTokens: number };
}

export interface LlmClient {
  /** "provider:model", as configured; recorded in the ledger. */
  readonly model: string;
  complete(request: LlmRequest): Promise<LlmResponse>;
}

export type LlmErrorCode =
  | "llm_rate_limited"
  | "llm_overloaded"
  | "llm_server_error"
  | "llm_timeout"
  | "llm_connection"
  | "llm_auth"
  | "llm_bad_request"
  | "llm_bad_response";

export class LlmError extends Error {
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "LlmError";
  }
}
