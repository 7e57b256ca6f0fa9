import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { generatorSource } from "../src/agent/generator-source";
import { type Config, parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { createItemStore } from "../src/db/item-store";
import { systemClock } from "../src/domain/clock";
import type { ModelRef } from "../src/domain/llm";
import { INVALID_TOOL_INPUT, LlmError, type LlmRequest, type ToolDefinition } from "../src/domain/llm";
import { createLlmClient } from "../src/llm/create-llm-client";
import { fakeLlm } from "./support/fake-llm-control";

const control = fakeLlm();

function llmSettings(overrides: Partial<Config["llm"]> = {}): Config["llm"] {
  return {
    anthropic: { apiKey: "test-key", baseUrl: `${control.url}/anthropic` },
    openai: { apiKey: "test-key", baseUrl: `${control.url}/openai/v1` },
    timeoutMs: 10_000,
    ...overrides,
  };
}

const READ_ITEM: ToolDefinition = {
  name: "read_item",
  description: "Reads one item in full by its ref.",
  inputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { ref: { type: "string" } },
    required: ["ref"],
    additionalProperties: false,
  },
};

const marker = () => `llm-adapter-${crypto.randomUUID()}`;

const request = (match: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({
  system: `You are a test.\nTest marker: ${match}`,
  messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
  maxTokens: 256,
  ...extra,
});

async function llmError(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe.each<{ provider: ModelRef["provider"] }>([{ provider: "anthropic" }, { provider: "openai" }])(
  "the $provider adapter through the official SDK",
  ({ provider }) => {
    const client = (overrides: Partial<Config["llm"]> = {}) =>
      createLlmClient({ provider, model: `fake-${provider}` }, llmSettings(overrides));

    it("names its model as provider:model", () => {
      expect(client().model).toBe(`${provider}:fake-${provider}`);
    });

    it("returns a plain text reply with its stop reason and the usage the server reported", async () => {
      const match = marker();
      const script = await control.script(match, [
        { text: "Hello from the fake.", usage: { inputTokens: 123, outputTokens: 7 } },
      ]);
      const response = await client().complete(request(match));
      expect(response).toEqual({
        content: [{ type: "text", text: "Hello from the fake." }],
        stopReason: "end_turn",
        usage: { inputTokens: 123, outputTokens: 7 },
      });
      await script.assertComplete();
      const [sent] = await script.requests();
      expect(sent?.neutral?.system).toContain(match);
      expect(sent?.neutral?.maxTokens).toBe(256);
    });

    it("round-trips a tool call: the call comes back parsed and the tool result is sent in the provider's shape", async () => {
      const match = marker();
      const script = await control.script(match, [
        { toolCalls: [{ name: "read_item", input: { ref: "E1" } }] },
        { text: "Done." },
      ]);
      const llm = client();
      const first = await llm.complete(request(match, { tools: [READ_ITEM] }));
      expect(first.stopReason).toBe("tool_use");
      const call = first.content[0];
      expect(call).toMatchObject({ type: "tool_call", name: "read_item", input: { ref: "E1" } });
      if (call?.type !== "tool_call") throw new Error("expected a tool call");

      const second = await llm.complete(
        request(match, {
          tools: [READ_ITEM],
          messages: [
            { role: "user", content: [{ type: "text", text: "Hello" }] },
            { role: "assistant", content: first.content },
            {
              role: "user",
              content: [
                { type: "tool_result", toolCallId: call.id, content: '{"error":"gone"}', isError: true },
              ],
            },
          ],
        }),
      );
      expect(second.content).toEqual([{ type: "text", text: "Done." }]);
      await script.assertComplete();

      const [, sent] = await script.requests();
      if (provider === "anthropic") {
        expect(sent?.body).toMatchObject({
          tools: [{ name: "read_item", input_schema: { type: "object", required: ["ref"] } }],
          messages: [
            { role: "user" },
            {
              role: "assistant",
              content: [{ type: "tool_use", id: call.id, name: "read_item", input: { ref: "E1" } }],
            },
            {
              role: "user",
              content: [
                { type: "tool_result", tool_use_id: call.id, content: '{"error":"gone"}', is_error: true },
              ],
            },
          ],
        });
      } else {
        expect(sent?.body).toMatchObject({
          tools: [{ type: "function", function: { name: "read_item", parameters: { type: "object" } } }],
          messages: [
            { role: "system" },
            { role: "user", content: "Hello" },
            {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: call.id, type: "function", function: { name: "read_item", arguments: '{"ref":"E1"}' } },
              ],
            },
            { role: "tool", tool_call_id: call.id, content: '{"error":"gone"}' },
          ],
        });
      }
      expect(JSON.stringify(sent?.body)).not.toContain("$schema");
    });

    it("forces a named tool when asked to", async () => {
      const match = marker();
      const script = await control.script(match, [
        { toolCalls: [{ name: "read_item", input: { ref: "M2" } }] },
      ]);
      const response = await client().complete(
        request(match, { tools: [READ_ITEM], toolChoice: { type: "tool", name: "read_item" } }),
      );
      expect(response.content).toMatchObject([{ type: "tool_call", input: { ref: "M2" } }]);
      const [sent] = await script.requests();
      expect(sent?.body).toHaveProperty(
        "tool_choice",
        provider === "anthropic"
          ? { type: "tool", name: "read_item" }
          : { type: "function", function: { name: "read_item" } },
      );
    });

    it("maps a reply cut by the token limit to max_tokens and a refusal to other", async () => {
      const match = marker();
      await control.script(match, [
        { text: "Cut sho", stopReason: "max_tokens" },
        { text: "No.", stopReason: "refusal" },
      ]);
      const llm = client();
      expect((await llm.complete(request(match))).stopReason).toBe("max_tokens");
      expect((await llm.complete(request(match))).stopReason).toBe("other");
    });

    it("surfaces tool-call arguments that are not JSON as an invalid input instead of throwing, and replays them", async () => {
      const match = marker();
      await control.fault(match, { kind: "malformed_tool_call", variant: "invalid_json" });
      const llm = client();
      const response = await llm.complete(request(match, { tools: [READ_ITEM] }));
      const call = response.content[0];
      if (call?.type !== "tool_call") throw new Error("expected a tool call");
      const raw = '{"ref": "E1", ';
      // Anthropic's wire carries parsed JSON, so the fake sends the broken text as a (non-object) string.
      expect(call.input).toEqual({ [INVALID_TOOL_INPUT]: provider === "openai" ? raw : JSON.stringify(raw) });

      const script = await control.script(match, [{ text: "ok" }]);
      await llm.complete(
        request(match, {
          tools: [READ_ITEM],
          messages: [
            { role: "user", content: [{ type: "text", text: "Hello" }] },
            { role: "assistant", content: response.content },
            {
              role: "user",
              content: [{ type: "tool_result", toolCallId: call.id, content: "bad input", isError: true }],
            },
          ],
        }),
      );
      const [sent] = await script.requests();
      const body = JSON.stringify(sent?.body);
      if (provider === "openai") expect(body).toContain(JSON.stringify(raw));
      expect(sent?.status).toBe(200);
    });

    it("surfaces tool-call arguments that are JSON but not an object as an invalid input", async () => {
      const match = marker();
      await control.fault(match, { kind: "malformed_tool_call", variant: "not_object" });
      const response = await client().complete(request(match, { tools: [READ_ITEM] }));
      expect(response.content).toMatchObject([
        { type: "tool_call", input: { [INVALID_TOOL_INPUT]: '"E1"' } },
      ]);
    });

    it("turns a 429 into a retryable llm_rate_limited error carrying Retry-After", async () => {
      const match = marker();
      const fault = await control.fault(match, { kind: "rate_limit", retryAfterSeconds: 7 });
      const error = await llmError(client().complete(request(match)));
      expect(error).toMatchObject({ code: "llm_rate_limited", retryable: true, retryAfterSeconds: 7 });
      expect((await fault.state()).hits).toBe(1);
      const [sent] = await control.requests(match);
      expect(sent?.status).toBe(429);
      expect(sent?.response).toMatchObject(
        provider === "anthropic"
          ? { type: "error", error: { type: "rate_limit_error" } }
          : { error: { code: "rate_limit_exceeded" } },
      );
    });

    it("turns a 500 into a retryable llm_server_error and an overload into a retryable llm_overloaded", async () => {
      const match = marker();
      await control.fault(match, { kind: "server_error" });
      await control.fault(match, { kind: "overloaded" });
      const llm = client();
      expect(await llmError(llm.complete(request(match)))).toMatchObject({
        code: "llm_server_error",
        retryable: true,
      });
      expect(await llmError(llm.complete(request(match)))).toMatchObject({
        code: "llm_overloaded",
        retryable: true,
      });
    });

    it("turns a 401 into a non-retryable llm_auth error and a 400 into a non-retryable llm_bad_request", async () => {
      const match = marker();
      await control.fault(match, { kind: "http_error", status: 401, message: "invalid x-api-key" });
      const llm = client();
      expect(await llmError(llm.complete(request(match)))).toMatchObject({
        code: "llm_auth",
        retryable: false,
      });
      // A tool result that answers no tool call is rejected by the provider's validation (the fake's too).
      const orphan = request(match, {
        messages: [
          { role: "user", content: [{ type: "tool_result", toolCallId: "call_nope", content: "x" }] },
        ],
      });
      expect(await llmError(llm.complete(orphan))).toMatchObject({
        code: "llm_bad_request",
        retryable: false,
      });
    });

    it("times out a slow reply as a retryable llm_timeout, without retrying", async () => {
      const match = marker();
      const fault = await control.fault(match, { kind: "slow", delayMs: 3_000 }, { times: 5 });
      const started = Date.now();
      const error = await llmError(client({ timeoutMs: 300 }).complete(request(match)));
      expect(error).toMatchObject({ code: "llm_timeout", retryable: true });
      expect(Date.now() - started).toBeLessThan(2_000);
      // maxRetries is 0: the Durable Object owns retries.
      expect((await fault.state()).hits).toBe(1);
    });

    it("reports an aborted call as llm_timeout", async () => {
      const match = marker();
      await control.fault(match, { kind: "slow", delayMs: 3_000 });
      const controller = new AbortController();
      const pending = client().complete(request(match, { signal: controller.signal }));
      setTimeout(() => controller.abort(), 100);
      expect(await llmError(pending)).toMatchObject({ code: "llm_timeout" });
    });

    it("reports an unreachable server as a retryable llm_connection error", async () => {
      const unreachable = { apiKey: "test-key", baseUrl: "http://127.0.0.1:9/v1" };
      const error = await llmError(
        client({ anthropic: unreachable, openai: unreachable }).complete(request(marker())),
      );
      expect(error).toMatchObject({ code: "llm_connection", retryable: true });
    });
  },
);

describe("createLlmClient", () => {
  it("is never built for a provider with neither an API key nor a base URL: the generator source says llm_not_configured", () => {
    const config = parseConfig(env);
    const deps = {
      items: createItemStore(createDb(config)),
      clock: systemClock,
      llmClient: (ref: ModelRef) => createLlmClient(ref, config.llm),
    };
    for (const provider of ["anthropic", "openai"] as const) {
      const llm = { ...config.llm, ...llmSettings({ anthropic: {}, openai: {} }) };
      const ref = { provider, model: "m" };
      const source = generatorSource({ ...config, llm: { ...llm, generator: ref, judge: ref } }, deps);
      expect(source).toMatchObject({ kind: "unavailable", code: "llm_not_configured" });
      expect(source.kind === "unavailable" && source.message).toContain(
        provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY",
      );
    }
    const none = { ...config, llm: { ...config.llm, generator: undefined, judge: undefined } };
    expect(generatorSource(none, deps)).toMatchObject({
      kind: "unavailable",
      code: "llm_not_configured",
    });
    expect(generatorSource(config, deps).kind).toBe("ready");
  });

  it("sends the run's end-user id where each provider takes it, and nothing when there is none", async () => {
    for (const provider of ["anthropic", "openai"] as const) {
      const match = marker();
      await control.script(match, [{ text: "one" }, { text: "two" }]);
      const llm = createLlmClient({ provider, model: `fake-${provider}` }, llmSettings());
      await llm.complete({ ...request(match), endUserId: "sha256-abc" });
      await llm.complete(request(match));
      const [withId, without] = await control.requests(match);
      const field =
        provider === "anthropic"
          ? { metadata: { user_id: "sha256-abc" } }
          : { safety_identifier: "sha256-abc" };
      expect(withId?.body).toMatchObject(field);
      expect(withId?.neutral?.endUser).toBe("sha256-abc");
      expect(without?.neutral?.endUser).toBeNull();
    }
  });

  it("accepts a base URL without a key, as for a local OpenAI-compatible server", async () => {
    const match = marker();
    await control.script(match, [{ text: "local model here" }]);
    const llm = createLlmClient(
      { provider: "openai", model: "llama3.1" },
      llmSettings({ openai: { baseUrl: `${control.url}/openai/v1` } }),
    );
    const response = await llm.complete(request(match));
    expect(response.content).toEqual([{ type: "text", text: "local model here" }]);
    const [sent] = await control.requests(match);
    // Compatible servers get max_tokens; api.openai.com would get max_completion_tokens.
    expect(sent?.body).toMatchObject({ model: "llama3.1", max_tokens: 256 });
  });

  it("is wired to the fake server by the test bindings", () => {
    expect(env.ANTHROPIC_BASE_URL).toBe(`${control.url}/anthropic`);
    expect(env.OPENAI_BASE_URL).toBe(`${control.url}/openai/v1`);
    expect(env.GENERATOR_MODEL).toBe("anthropic:fake-generator");
  });
});
