/**
 * The fake LLM server: one Node HTTP server speaking the real wire formats of
 *   Anthropic Messages         POST /anthropic/v1/messages          (SDK baseURL `${url}/anthropic`)
 *   OpenAI Chat Completions    POST /openai/v1/chat/completions     (SDK baseURL `${url}/openai/v1`)
 *   OpenAI Embeddings          POST /openai/v1/embeddings           (same baseURL; embedding-vectors.ts)
 * Each request is answered by, in order: a registered fault that applies, the next turn of a registered
 * script that applies, or the default policy (the judge for requests offering submit_verdict, the
 * reference generator for requests offering research tools). An embeddings request is answered by a fault
 * that applies (role "embedding"; matched against its model and inputs) or the deterministic hashed
 * features of embedding-vectors.ts. Control API (JSON):
 *   POST   /__control/scripts        { match, role?, turns }        -> 201 { id }
 *   GET    /__control/scripts/:id    -> { id, match, consumed, remaining, requests }
 *   DELETE /__control/scripts/:id    -> 204
 *   POST   /__control/faults         { match, role?, fault, times? } -> 201 { id }
 *   GET    /__control/faults/:id     -> { id, match, fault, remaining, hits }
 *   DELETE /__control/faults/:id     -> 204
 *   GET    /__control/requests?match=&role=  -> { requests }
 *   POST   /__control/reset          -> 204 (forgets everything; for long dev sessions)
 * Test support only: nothing under src/ imports it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServer, readBody, send } from "../../../../scripts/lib/node-http";
import { JUDGE_TOOL, TOOL_NAMES } from "../../../../src/agent/wire-format";
import {
  anthropicError,
  checkAnthropicHeaders,
  parseAnthropicRequest,
  renderAnthropicReply,
} from "./anthropic-wire";
import { judgeReply } from "./judge-policy";
import { parseEmbeddingsRequest, renderEmbeddingsReply } from "./openai-embeddings-wire";
import { checkOpenAiHeaders, openAiError, parseOpenAiRequest, renderOpenAiReply } from "./openai-wire";
import type { FakeFault, FakeReply, FaultSpec, NeutralRequest, ScriptSpec } from "./protocol";
import { referenceGeneratorReply, referenceMemoryBody } from "./reference-generator";
import { FakeLlmState } from "./state";
import { requestText } from "./text";
import { idsFor, isWireError, type WireError } from "./wire";

export interface FakeLlm {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  anthropicBaseUrl: string;
  openaiBaseUrl: string;
  state: FakeLlmState;
  close(): Promise<void>;
}

/** The worker settings that make it generate with this fake: its reference policies. */
export function workerVarsFor(
  fake: Pick<FakeLlm, "anthropicBaseUrl" | "openaiBaseUrl">,
): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: fake.anthropicBaseUrl,
    ANTHROPIC_API_KEY: "fake-key",
    OPENAI_BASE_URL: fake.openaiBaseUrl,
    OPENAI_API_KEY: "fake-key",
    GENERATOR_MODEL: "anthropic:fake-generator",
    JUDGE_MODEL: "openai:fake-judge",
    LLM_FAKE: "true",
  };
}

type Provider = "anthropic" | "openai";

const RESEARCH_TOOLS = new Set<string>(Object.values(TOOL_NAMES));
const DEFAULT_RETRY_AFTER_SECONDS = 2;

export async function startFakeLlm(options: { port?: number; host?: string } = {}): Promise<FakeLlm> {
  const state = new FakeLlmState();
  const server = createServer((req, res) => {
    route(state, req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: `fake-llm: ${String(err)}` } });
      else res.end();
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  return {
    url,
    anthropicBaseUrl: `${url}/anthropic`,
    openaiBaseUrl: `${url}/openai/v1`,
    state,
    close: () => closeServer(server),
  };
}

async function route(state: FakeLlmState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://fake");
  const path = url.pathname.replace(/\/+$/, "");
  if (req.method === "POST" && path === "/anthropic/v1/messages")
    return provider(state, "anthropic", req, res);
  if (req.method === "POST" && path === "/openai/v1/chat/completions")
    return provider(state, "openai", req, res);
  if (req.method === "POST" && path === "/openai/v1/embeddings") return embeddings(state, req, res);
  if (path.startsWith("/__control")) return control(state, req, res, path, url.searchParams);
  send(res, 404, { error: { message: `fake-llm: no route ${req.method} ${path}` } });
}

async function provider(state: FakeLlmState, which: Provider, req: IncomingMessage, res: ServerResponse) {
  const bodyText = await readBody(req);
  const ids = idsFor(bodyText);
  const requestId = ids.make("req_", -2);
  const fail = (error: WireError, handledBy: string, body: unknown, neutral: NeutralRequest | null) => {
    const payload =
      which === "anthropic"
        ? anthropicError(error.status, error.message, requestId)
        : openAiError(error.status, error.message);
    const headers: Record<string, string> = {};
    if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
    send(res, error.status, payload, { ...requestIdHeader(which, requestId), ...headers });
    return { status: error.status, response: payload, handledBy, body, neutral };
  };

  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    const out = fail({ status: 400, message: "Request body is not valid JSON" }, "invalid", bodyText, null);
    state.record({ at: now(), provider: which, role: "generator", ...out });
    return;
  }
  const headerError =
    which === "anthropic" ? checkAnthropicHeaders(req.headers) : checkOpenAiHeaders(req.headers);
  const parsed =
    headerError ?? (which === "anthropic" ? parseAnthropicRequest(body) : parseOpenAiRequest(body));
  if (isWireError(parsed)) {
    const out = fail(parsed, "invalid", body, null);
    state.record({ at: now(), provider: which, role: "generator", ...out });
    return;
  }
  const request = parsed;
  const role = request.tools.some((t) => t.name === JUDGE_TOOL) ? "judge" : "generator";
  const selected = { text: `${requestText(request)}\n${request.endUser ?? ""}`, role } as const;

  const closed = new AbortController();
  res.on("close", () => closed.abort());
  const skip = new Set<string>();
  let handledBy = "";
  let reply: FakeReply | null = null;
  let scriptId: string | undefined;
  while (reply === null) {
    const fault = state.takeFault(selected, skip);
    if (fault) {
      skip.add(fault.id);
      handledBy = `fault:${fault.id}`;
      if (fault.fault.kind === "slow") {
        await delay(fault.fault.delayMs, closed.signal);
        continue;
      }
      const outcome = applyFault(fault.fault, request);
      if (isWireError(outcome)) {
        state.record({ at: now(), provider: which, role, ...fail(outcome, handledBy, body, request) });
        return;
      }
      reply = outcome;
      break;
    }
    const scripted = state.takeTurn(selected);
    if (scripted) {
      scriptId = scripted.scriptId;
      handledBy = `script:${scripted.scriptId}`;
      if ("fault" in scripted.turn) {
        if (scripted.turn.fault.kind === "slow") {
          await delay(scripted.turn.fault.delayMs, closed.signal);
          reply = policyReply(request, role);
          break;
        }
        const outcome = applyFault(scripted.turn.fault, request);
        if (isWireError(outcome)) {
          state.record(
            { at: now(), provider: which, role, ...fail(outcome, handledBy, body, request) },
            scriptId,
          );
          return;
        }
        reply = outcome;
      } else {
        reply = scripted.turn;
      }
      break;
    }
    handledBy = handledBy || policyName(request, role);
    reply = policyReply(request, role);
  }
  if (reply.delayMs) await delay(reply.delayMs, closed.signal);
  const response =
    which === "anthropic"
      ? renderAnthropicReply(reply, request, ids)
      : renderOpenAiReply(reply, request, ids);
  if (!closed.signal.aborted) send(res, 200, response, requestIdHeader(which, requestId));
  state.record(
    { at: now(), provider: which, role, handledBy, status: 200, body, neutral: request, response },
    scriptId,
  );
}

async function embeddings(state: FakeLlmState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const bodyText = await readBody(req);
  const requestId = idsFor(bodyText).make("req_", -2);
  const record = (entry: { status: number; response: unknown; handledBy: string; body: unknown }) =>
    state.record({ at: now(), provider: "openai", role: "embedding", neutral: null, ...entry });
  const fail = (error: WireError, handledBy: string, body: unknown) => {
    const payload = openAiError(error.status, error.message);
    const headers: Record<string, string> = { "x-request-id": requestId };
    if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
    send(res, error.status, payload, headers);
    record({ status: error.status, response: payload, handledBy, body });
  };
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return fail({ status: 400, message: "Request body is not valid JSON" }, "invalid", bodyText);
  }
  const parsed = checkOpenAiHeaders(req.headers) ?? parseEmbeddingsRequest(body);
  if (isWireError(parsed)) return fail(parsed, "invalid", body);

  const selected = { text: `${parsed.model}\n${parsed.inputs.join("\n")}`, role: "embedding" } as const;
  const closed = new AbortController();
  res.on("close", () => closed.abort());
  const skip = new Set<string>();
  let handledBy = "policy:embeddings";
  let drop = 0;
  for (let fault = state.takeFault(selected, skip); fault; fault = state.takeFault(selected, skip)) {
    skip.add(fault.id);
    handledBy = `fault:${fault.id}`;
    if (fault.fault.kind === "slow") {
      await delay(fault.fault.delayMs, closed.signal);
      continue;
    }
    if (fault.fault.kind === "missing_embedding") {
      drop = 1;
      break;
    }
    const error = httpFault(fault.fault, "openai") ?? {
      status: 400,
      message: `the fault ${fault.fault.kind} does not apply to embeddings (fake-llm)`,
    };
    return fail(error, handledBy, body);
  }
  const response = renderEmbeddingsReply(parsed, drop);
  if (!closed.signal.aborted) send(res, 200, response, { "x-request-id": requestId });
  record({ status: 200, response, handledBy, body });
}

function policyName(request: NeutralRequest, role: "generator" | "judge"): string {
  if (role === "judge") return "policy:judge";
  return request.tools.some((t) => RESEARCH_TOOLS.has(t.name)) ? "policy:generator" : "policy:none";
}

function policyReply(request: NeutralRequest, role: "generator" | "judge"): FakeReply {
  const name = policyName(request, role);
  if (name === "policy:judge") return judgeReply(request);
  if (name === "policy:generator") return referenceGeneratorReply(request);
  return { text: "This is the fake LLM: no script, fault or policy applies to this request." };
}

/** The faults that are HTTP errors, in the provider's statuses; null for the others. */
function httpFault(fault: FakeFault, provider: Provider): WireError | null {
  switch (fault.kind) {
    case "rate_limit":
      return {
        status: 429,
        message: "Number of request tokens has exceeded your per-minute rate limit (fake-llm fault).",
        retryAfterSeconds: fault.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
      };
    case "server_error":
      return { status: fault.status ?? 500, message: "Internal server error (fake-llm fault)." };
    case "overloaded":
      return provider === "anthropic"
        ? { status: 529, message: "Overloaded (fake-llm fault)." }
        : {
            status: 503,
            message: "The engine is currently overloaded, please try again later (fake-llm fault).",
          };
    case "http_error":
      return {
        status: fault.status,
        message: fault.message ?? `HTTP ${fault.status} (fake-llm fault).`,
        retryAfterSeconds: fault.retryAfterSeconds,
      };
    default:
      return null;
  }
}

/** A fault as an HTTP error, or as a (bad) reply. */
function applyFault(
  fault: Exclude<FakeFault, { kind: "slow" }>,
  request: NeutralRequest,
): WireError | FakeReply {
  const http = httpFault(fault, request.provider);
  if (http) return http;
  switch (fault.kind) {
    case "rate_limit":
    case "server_error":
    case "overloaded":
    case "http_error":
      throw new Error("unreachable: an HTTP fault");
    case "malformed_tool_call": {
      const name = request.tools[0]?.name ?? TOOL_NAMES.readItem;
      const rawArguments = fault.variant === "not_object" ? '"E1"' : '{"ref": "E1", ';
      return { toolCalls: [{ name, rawArguments }], stopReason: "tool_use" };
    }
    case "missing_memory_tags":
      return {
        text: `Here is the memory I wrote:\n\n${referenceMemoryBody(request)}`,
        stopReason: "end_turn",
      };
    case "missing_embedding":
      return { status: 400, message: "missing_embedding is a fault of embeddings requests (fake-llm)." };
    case "invalid_verdict":
      return {
        toolCalls: [
          fault.variant === "json"
            ? { name: JUDGE_TOOL, rawArguments: '{"accepted": tru' }
            : { name: JUDGE_TOOL, input: { accepted: "yes", reason: 42, unsupported: "none" } },
        ],
        stopReason: "tool_use",
      };
  }
}

async function control(
  state: FakeLlmState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  const [, , collection, id] = path.split("/");
  const method = req.method ?? "GET";
  if (collection === "scripts" && method === "POST" && !id) {
    const spec = parseSpec(await readBody(req));
    if (!spec || !Array.isArray((spec as Partial<ScriptSpec>).turns)) {
      return send(res, 400, { error: "expected { match: string, role?, turns: [...] }" });
    }
    return send(res, 201, { id: state.addScript(spec as unknown as ScriptSpec) });
  }
  if (collection === "faults" && method === "POST" && !id) {
    const spec = parseSpec(await readBody(req));
    const fault = spec ? (spec as Partial<FaultSpec>).fault : undefined;
    if (!spec || typeof fault !== "object" || fault === null || typeof fault.kind !== "string") {
      return send(res, 400, { error: "expected { match: string, role?, fault: { kind, ... }, times? }" });
    }
    return send(res, 201, { id: state.addFault(spec as unknown as FaultSpec) });
  }
  if ((collection === "scripts" || collection === "faults") && id) {
    const found = collection === "scripts" ? state.script(id) : state.fault(id);
    if (!found) return send(res, 404, { error: `no ${collection.slice(0, -1)} ${id}` });
    if (method === "GET") return send(res, 200, found);
    if (method === "DELETE") {
      if (collection === "scripts") state.deleteScript(id);
      else state.deleteFault(id);
      res.writeHead(204).end();
      return;
    }
  }
  if (collection === "requests" && method === "GET") {
    return send(res, 200, {
      requests: state.requests({
        match: query.get("match") ?? undefined,
        role: query.get("role") ?? undefined,
      }),
    });
  }
  if (collection === "reset" && method === "POST") {
    state.reset();
    res.writeHead(204).end();
    return;
  }
  send(res, 404, { error: `fake-llm control: no route ${method} ${path}` });
}

function parseSpec(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const spec = value as Record<string, unknown>;
    if (typeof spec.match !== "string" || spec.match === "") return null;
    if (spec.role !== undefined && !["generator", "judge", "embedding"].includes(String(spec.role)))
      return null;
    return spec;
  } catch {
    return null;
  }
}

function requestIdHeader(which: Provider, requestId: string): Record<string, string> {
  return which === "anthropic" ? { "request-id": requestId } : { "x-request-id": requestId };
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const now = () => new Date().toISOString();
