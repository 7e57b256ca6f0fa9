/** Anthropic Messages API wire format: request validation/parsing, replies and error bodies as the real API sends them. */
import type { FakeReply, NeutralBlock, NeutralMessage, NeutralRequest } from "./protocol";
import { type Ids, replyUsage, type WireError } from "./wire";

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

export function anthropicError(status: number, message: string, requestId: string): unknown {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  return { type: "error", error: { type, message }, request_id: requestId };
}

const bad = (message: string): WireError => ({ status: 400, message });

export function checkAnthropicHeaders(
  headers: Record<string, string | string[] | undefined>,
): WireError | null {
  const key =
    headers["x-api-key"] ?? (String(headers.authorization ?? "").replace(/^Bearer\s+/i, "") || undefined);
  if (!key) return { status: 401, message: "x-api-key header is required" };
  if (!headers["anthropic-version"]) return bad("anthropic-version: header is required");
  return null;
}

export function parseAnthropicRequest(body: unknown): NeutralRequest | WireError {
  if (!isRecord(body)) return bad("Request body must be a JSON object");
  if (typeof body.model !== "string" || body.model === "") return bad("model: Field required");
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
    return bad("max_tokens: Field required (an integer >= 1)");
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return bad("messages: at least one message is required");

  let system = "";
  if (typeof body.system === "string") system = body.system;
  else if (Array.isArray(body.system)) {
    system = body.system.map((b) => (isRecord(b) && typeof b.text === "string" ? b.text : "")).join("\n");
  } else if (body.system !== undefined)
    return bad("system: Input should be a valid string or list of text blocks");

  const messages: NeutralMessage[] = [];
  for (const [i, raw] of body.messages.entries()) {
    if (!isRecord(raw) || (raw.role !== "user" && raw.role !== "assistant")) {
      return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
    const parsed = parseContent(raw.content, `messages.${i}.content`);
    if ("status" in parsed) return parsed;
    messages.push({ role: raw.role, content: parsed });
  }
  const pairing = checkToolPairing(messages);
  if (pairing) return pairing;

  const tools: NeutralRequest["tools"] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return bad("tools: Input should be a valid list");
    for (const [i, tool] of body.tools.entries()) {
      if (!isRecord(tool) || typeof tool.name !== "string") return bad(`tools.${i}.name: Field required`);
      if (!isRecord(tool.input_schema) || tool.input_schema.type !== "object") {
        return bad(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
      }
      tools.push({ name: tool.name, description: String(tool.description ?? ""), schema: tool.input_schema });
    }
  }
  let toolChoice: NeutralRequest["toolChoice"] = null;
  if (isRecord(body.tool_choice)) {
    const type = body.tool_choice.type;
    if (type !== "auto" && type !== "any" && type !== "none" && type !== "tool") {
      return bad("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
    }
    const name = typeof body.tool_choice.name === "string" ? body.tool_choice.name : undefined;
    if (type === "tool" && !tools.some((t) => t.name === name)) {
      return bad(`tool_choice: tool '${name}' was not found in tools`);
    }
    toolChoice = { type, name };
  }
  return {
    provider: "anthropic",
    model: body.model,
    system,
    messages,
    tools,
    toolChoice,
    maxTokens: body.max_tokens as number,
    endUser:
      isRecord(body.metadata) && typeof body.metadata.user_id === "string" ? body.metadata.user_id : null,
  };
}

function parseContent(content: unknown, path: string): NeutralBlock[] | WireError {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return bad(`${path}: Input should be a valid string or list`);
  const blocks: NeutralBlock[] = [];
  for (const [j, block] of content.entries()) {
    const at = `${path}.${j}`;
    if (!isRecord(block)) return bad(`${at}: Input should be an object`);
    if (block.type === "text") {
      if (typeof block.text !== "string" || block.text === "")
        return bad(`${at}: text content blocks must be non-empty`);
      blocks.push({ type: "text", text: block.text });
    } else if (block.type === "tool_use") {
      if (typeof block.id !== "string" || typeof block.name !== "string")
        return bad(`${at}.tool_use: id and name are required`);
      if (!isRecord(block.input)) return bad(`${at}.tool_use.input: Input should be a valid dictionary`);
      blocks.push({ type: "tool_call", id: block.id, name: block.name, input: block.input });
    } else if (block.type === "tool_result") {
      if (typeof block.tool_use_id !== "string") return bad(`${at}.tool_result.tool_use_id: Field required`);
      let text = "";
      if (typeof block.content === "string") text = block.content;
      else if (Array.isArray(block.content)) {
        text = block.content.map((c) => (isRecord(c) && typeof c.text === "string" ? c.text : "")).join("\n");
      }
      blocks.push({
        type: "tool_result",
        toolCallId: block.tool_use_id,
        content: text,
        isError: block.is_error === true,
      });
    } else {
      return bad(`${at}.type: unsupported content block type ${JSON.stringify(block.type)} in this fake`);
    }
  }
  return blocks;
}

/** As the real API: each tool_use must be answered by a tool_result in the very next message, and vice versa. */
function checkToolPairing(messages: NeutralMessage[]): WireError | null {
  for (const [i, message] of messages.entries()) {
    const results = message.content.flatMap((b) => (b.type === "tool_result" ? [b.toolCallId] : []));
    if (results.length > 0) {
      const prev = messages[i - 1];
      const uses = new Set(
        prev?.role === "assistant" ? prev.content.flatMap((b) => (b.type === "tool_call" ? [b.id] : [])) : [],
      );
      const orphan = results.filter((id) => !uses.has(id));
      if (message.role !== "user" || orphan.length > 0) {
        return bad(
          `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${orphan.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
    if (message.role === "assistant") {
      const uses = message.content.flatMap((b) => (b.type === "tool_call" ? [b.id] : []));
      const next = messages[i + 1];
      if (uses.length > 0 && next) {
        const answered = new Set(
          next.content.flatMap((b) => (b.type === "tool_result" ? [b.toolCallId] : [])),
        );
        const missing = uses.filter((id) => !answered.has(id));
        if (missing.length > 0) {
          return bad(
            `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          );
        }
      }
    }
  }
  return null;
}

export function renderAnthropicReply(reply: FakeReply, request: NeutralRequest, ids: Ids): unknown {
  const content: unknown[] = [];
  if (reply.text !== undefined && reply.text !== "")
    content.push({ type: "text", text: reply.text, citations: null });
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    content.push({
      type: "tool_use",
      id: call.id ?? ids.make("toolu_", i),
      name: call.name,
      input:
        call.input !== undefined
          ? call.input
          : call.rawArguments !== undefined
            ? parseOrRaw(call.rawArguments)
            : {},
    });
  }
  const usage = replyUsage(reply, request);
  return {
    id: ids.make("msg_", -1),
    type: "message",
    role: "assistant",
    model: request.model,
    content,
    stop_reason: reply.stopReason ?? ((reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      service_tier: "standard",
    },
    container: null,
  };
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
