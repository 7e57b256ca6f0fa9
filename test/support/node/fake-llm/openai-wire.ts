/** OpenAI Chat Completions wire format: request validation/parsing, replies and error bodies as the real API sends them. */
import type { FakeReply, FakeStopReason, NeutralBlock, NeutralMessage, NeutralRequest } from "./protocol";
import { type Ids, replyUsage, type WireError } from "./wire";

const ERRORS: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
  500: { type: "server_error", code: null },
  503: { type: "server_error", code: "engine_overloaded" },
};

export function openAiError(status: number, message: string, param: string | null = null): unknown {
  const known = ERRORS[status] ?? {
    type: status >= 500 ? "server_error" : "invalid_request_error",
    code: null,
  };
  return { error: { message, type: known.type, param, code: known.code } };
}

const bad = (message: string): WireError => ({ status: 400, message });

export function checkOpenAiHeaders(headers: Record<string, string | string[] | undefined>): WireError | null {
  const auth = String(headers.authorization ?? "");
  if (!/^Bearer\s+\S+/i.test(auth)) {
    return {
      status: 401,
      message:
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    };
  }
  return null;
}

export function parseOpenAiRequest(body: unknown): NeutralRequest | WireError {
  if (!isRecord(body)) return bad("We could not parse the JSON body of your request.");
  if (typeof body.model !== "string" || body.model === "") return bad("you must provide a model parameter");
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return bad(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
    );
  }
  const systemParts: string[] = [];
  const messages: NeutralMessage[] = [];
  const push = (role: NeutralMessage["role"], block: NeutralBlock) => {
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  const pending = new Set<string>();
  for (const [i, m] of body.messages.entries()) {
    if (!isRecord(m)) return bad(`Invalid type for 'messages[${i}]': expected an object.`);
    if (m.role !== "tool" && pending.size > 0) return unanswered(pending);
    const text = contentText(m.content);
    if (m.role === "system" || m.role === "developer") systemParts.push(text);
    else if (m.role === "user") push("user", { type: "text", text });
    else if (m.role === "assistant") {
      if (text !== "") push("assistant", { type: "text", text });
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      for (const call of calls) {
        if (!isRecord(call) || typeof call.id !== "string" || !isRecord(call.function)) {
          return bad(`Invalid 'messages[${i}].tool_calls': each needs an id and a function.`);
        }
        const raw = String(call.function.arguments ?? "");
        push("assistant", {
          type: "tool_call",
          id: call.id,
          name: String(call.function.name),
          input: parseOrRaw(raw),
        });
        pending.add(call.id);
      }
    } else if (m.role === "tool") {
      const id = typeof m.tool_call_id === "string" ? m.tool_call_id : "";
      if (!pending.delete(id)) {
        return bad(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        );
      }
      push("user", { type: "tool_result", toolCallId: id, content: text, isError: false });
    } else {
      return bad(
        `Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`,
      );
    }
  }
  if (pending.size > 0) return unanswered(pending);

  const tools: NeutralRequest["tools"] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return bad("Invalid type for 'tools': expected an array.");
    for (const [i, tool] of body.tools.entries()) {
      if (
        !isRecord(tool) ||
        tool.type !== "function" ||
        !isRecord(tool.function) ||
        typeof tool.function.name !== "string"
      ) {
        return bad(`Missing required parameter: 'tools[${i}].function'.`);
      }
      tools.push({
        name: tool.function.name,
        description: String(tool.function.description ?? ""),
        schema: tool.function.parameters ?? {},
      });
    }
  }
  let toolChoice: NeutralRequest["toolChoice"] = null;
  if (body.tool_choice === "auto" || body.tool_choice === "none") toolChoice = { type: body.tool_choice };
  else if (body.tool_choice === "required") toolChoice = { type: "any" };
  else if (isRecord(body.tool_choice)) {
    const fn = isRecord(body.tool_choice.function) ? body.tool_choice.function : {};
    const name = typeof fn.name === "string" ? fn.name : undefined;
    if (!tools.some((t) => t.name === name)) {
      return bad(`Invalid value for 'tool_choice': tool '${name}' is not among the provided tools.`);
    }
    toolChoice = { type: "tool", name };
  }
  const limit = body.max_completion_tokens ?? body.max_tokens;
  return {
    provider: "openai",
    model: body.model,
    system: systemParts.join("\n"),
    messages,
    tools,
    toolChoice,
    maxTokens: typeof limit === "number" ? limit : null,
    endUser:
      typeof body.safety_identifier === "string"
        ? body.safety_identifier
        : typeof body.user === "string"
          ? body.user
          : null,
  };
}

function unanswered(pending: Set<string>): WireError {
  return bad(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
  );
}

const FINISH: Record<FakeStopReason, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "content_filter",
};

export function renderOpenAiReply(reply: FakeReply, request: NeutralRequest, ids: Ids): unknown {
  const calls = reply.toolCalls ?? [];
  const usage = replyUsage(reply, request);
  const stop = reply.stopReason ?? (calls.length > 0 ? "tool_use" : "end_turn");
  return {
    id: ids.make("chatcmpl-", -1),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text === undefined || reply.text === "" ? null : reply.text,
          refusal: null,
          annotations: [],
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call, i) => ({
                  id: call.id ?? ids.make("call_", i),
                  type: "function",
                  function: {
                    name: call.name,
                    arguments: call.rawArguments ?? JSON.stringify(call.input ?? {}),
                  },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: FINISH[stop],
      },
    ],
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: "default",
    system_fingerprint: null,
  };
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (isRecord(p) && typeof p.text === "string" ? p.text : "")).join("\n");
  }
  return "";
}

function parseOrRaw(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
