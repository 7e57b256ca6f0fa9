/**
 * The fake LLM server's control protocol: provider-neutral replies, faults and scripts. Types only (no
 * Node imports), shared by the server and by the control client that tests in workerd use.
 */

/** Stop reasons in Anthropic's names; the OpenAI side maps them to finish_reason. */
export type FakeStopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal";

export interface FakeToolCall {
  /** Defaults to a deterministic id in the provider's format. */
  id?: string;
  name: string;
  /** The arguments as a JSON value (usually an object). */
  input?: unknown;
  /**
   * Raw arguments text, sent verbatim: OpenAI's `function.arguments` string; on Anthropic (whose wire
   * carries parsed JSON) the parsed value if it is JSON, otherwise the string itself as `input`.
   */
  rawArguments?: string;
}

/** One reply, provider-neutral. */
export interface FakeReply {
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Defaults to tool_use when there are tool calls, end_turn otherwise. */
  stopReason?: FakeStopReason;
  /** Defaults to a deterministic estimate: ceil(chars / 4) of the request and of the reply. */
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Wait this long before answering (client timeouts fire). */
  delayMs?: number;
}

export type FakeFault =
  /** 429 in the provider's error shape, with Retry-After. */
  | { kind: "rate_limit"; retryAfterSeconds?: number }
  /** 500 (or another 5xx) api_error / server_error. */
  | { kind: "server_error"; status?: number }
  /** Anthropic 529 overloaded_error; OpenAI 503. */
  | { kind: "overloaded" }
  /** Any status in the provider's error shape (e.g. 401, 400). */
  | { kind: "http_error"; status: number; message?: string; retryAfterSeconds?: number }
  /** Wait, then answer as if the fault were not there (next fault, script turn or policy). */
  | { kind: "slow"; delayMs: number }
  /** A call of the first offered tool whose arguments are invalid JSON or not an object. */
  | { kind: "malformed_tool_call"; variant?: "invalid_json" | "not_object" }
  /** The reference memory as the final answer, but without <memory> tags. */
  | { kind: "missing_memory_tags" }
  /** submit_verdict with arguments that do not match its schema (or are not JSON at all). */
  | { kind: "invalid_verdict"; variant?: "schema" | "json" }
  /** Embeddings only: a 200 answer with one embedding fewer than the inputs. */
  | { kind: "missing_embedding" };

export type FakeTurn = FakeReply | { fault: FakeFault };

/**
 * Which kind of request: "judge" requests offer the submit_verdict tool, "embedding" requests are
 * POST /openai/v1/embeddings, "generator" all other chat requests.
 */
export type FakeRole = "generator" | "judge" | "embedding";

/**
 * Which requests a script or fault applies to. `match` must occur in the request's system prompt, its
 * messages or its end-user identifier (what a real request carries anyway: the agent's first message names
 * the subject; every request of a run carries endUserIdOf(subject)), or for an embeddings request in its
 * model or one of its inputs. `role` narrows it (FakeRole).
 */
export interface FakeSelector {
  match: string;
  role?: FakeRole;
}

export interface ScriptSpec extends FakeSelector {
  turns: FakeTurn[];
}

export interface FaultSpec extends FakeSelector {
  fault: FakeFault;
  /** How many matching requests it applies to (default 1). */
  times?: number;
}

export type NeutralBlock =
  | { type: "text"; text: string }
  | { type: "tool_call"; id: string; name: string; input: unknown }
  | { type: "tool_result"; toolCallId: string; content: string; isError: boolean };

export interface NeutralMessage {
  role: "user" | "assistant";
  content: NeutralBlock[];
}

/** A request as the fake understood it, whichever provider it came through. */
export interface NeutralRequest {
  provider: "anthropic" | "openai";
  model: string;
  system: string;
  messages: NeutralMessage[];
  tools: { name: string; description: string; schema: unknown }[];
  toolChoice: { type: "auto" | "any" | "none" | "tool"; name?: string } | null;
  maxTokens: number | null;
  /** The provider's end-user identifier (Anthropic metadata.user_id, OpenAI safety_identifier or user). */
  endUser: string | null;
}

export interface RecordedRequest {
  seq: number;
  at: string;
  provider: "anthropic" | "openai";
  role: FakeRole;
  /** "fault:<id>", "script:<id>", "policy:generator", "policy:judge", "policy:none" or "invalid". */
  handledBy: string;
  status: number;
  /** The HTTP body as the SDK sent it. */
  body: unknown;
  /** The same request, provider-neutral (null when the body was invalid). */
  neutral: NeutralRequest | null;
  /** The HTTP body the fake answered with. */
  response: unknown;
}

export interface ScriptState {
  id: string;
  match: string;
  role?: FakeRole;
  consumed: number;
  remaining: FakeTurn[];
  requests: RecordedRequest[];
}

export interface FaultState {
  id: string;
  match: string;
  role?: FakeRole;
  fault: FakeFault;
  remaining: number;
  hits: number;
}
