/**
 * The embedders: the OpenAI adapter through the official SDK against the fake server's
 * /openai/v1/embeddings, the Workers AI adapter against a hand-written fake of the binding's `run` (there
 * is no local simulation), and createEmbedder from the configuration.
 */
import { env } from "cloudflare:workers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config/config";
import { EmbeddingError } from "../src/domain/embeddings";
import { createEmbedder } from "../src/embeddings/create-embedder";
import {
  createOpenAiEmbedder,
  embeddingVector,
  OPENAI_MAX_INPUTS_PER_REQUEST,
} from "../src/embeddings/openai";
import {
  type AiBinding,
  BGE_QUERY_INSTRUCTION,
  createWorkersAiEmbedder,
  WORKERS_AI_MAX_TEXTS_PER_CALL,
} from "../src/embeddings/workers-ai";
import { fakeLlm } from "./support/fake-llm-control";
import { cosine, fakeEmbedding } from "./support/node/fake-llm/embedding-vectors";

const control = fakeLlm();
const baseUrl = `${control.url}/openai/v1`;
const marker = () => `embedding-${crypto.randomUUID()}`;

const openAi = (options: { dimensions?: number; timeoutMs?: number; model?: string; url?: string } = {}) =>
  createOpenAiEmbedder({
    model: options.model ?? "fake-embedding",
    apiKey: "test-key",
    baseUrl: options.url ?? baseUrl,
    dimensions: options.dimensions,
    timeoutMs: options.timeoutMs ?? 10_000,
  });

async function embeddingError(promise: Promise<unknown>): Promise<EmbeddingError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EmbeddingError);
  return error as EmbeddingError;
}

const requestsOf = (match: string) => control.requests(match, { role: "embedding" });

describe("the OpenAI embedder through the official SDK", () => {
  it("answers one vector per text, in order, as the server computed them, asking for base64 float32", async () => {
    const m = marker();
    const texts = [`${m} the ledger cut-over`, `${m} lunch plans`];
    const embedder = openAi();
    expect(embedder).toMatchObject({ model: "openai:fake-embedding", dimensions: null, maxInputTokens: 512 });
    const vectors = await embedder.embed(texts, "document");
    expect(vectors).toEqual(texts.map((t) => fakeEmbedding(t).map(Math.fround)));
    const [sent] = await requestsOf(m);
    expect(sent).toMatchObject({ status: 200, handledBy: "policy:embeddings" });
    expect(sent!.body).toEqual({ model: "fake-embedding", input: texts, encoding_format: "base64" });
  });

  it("asks for the configured dimensions and checks every vector has them", async () => {
    const m = marker();
    const embedder = openAi({ dimensions: 64 });
    expect(embedder.dimensions).toBe(64);
    const [vector] = await embedder.embed([`${m} quarterly numbers`], "query");
    expect(vector).toHaveLength(64);
    expect(vector).toEqual(fakeEmbedding(`${m} quarterly numbers`, 64).map(Math.fround));
    const [sent] = await requestsOf(m);
    expect(sent!.body).toMatchObject({ dimensions: 64, encoding_format: "base64" });
  });

  it("asks a server that refuses base64 for floats, then and from then on", async () => {
    const m = marker();
    await control.fault(
      m,
      { kind: "http_error", status: 400, message: "encoding_format must be float" },
      { role: "embedding" },
    );
    const embedder = openAi();
    expect(await embedder.embed([`${m} first`], "document")).toEqual([fakeEmbedding(`${m} first`)]);
    expect(await embedder.embed([`${m} second`], "document")).toEqual([fakeEmbedding(`${m} second`)]);
    const sent = await requestsOf(m);
    expect(sent.map((r) => [r.status, (r.body as { encoding_format: string }).encoding_format])).toEqual([
      [400, "base64"],
      [200, "float"],
      [200, "float"],
    ]);
  });

  it("reads an embedding as floats or as base64 float32, and nothing else", () => {
    const floats = [0.25, -1.5, 3];
    const base64 = btoa(String.fromCharCode(...new Uint8Array(new Float32Array(floats).buffer)));
    expect(embeddingVector(floats)).toEqual(floats);
    expect(embeddingVector(base64)).toEqual(floats);
    for (const bad of ["", "not base64!", btoa("abc"), 7, null, { x: 1 }])
      expect(embeddingVector(bad)).toBeNull();
  });

  it("knows OpenAI's models: their sizes and input limits", () => {
    expect(openAi({ model: "text-embedding-3-small" })).toMatchObject({
      dimensions: 1536,
      maxInputTokens: 8191,
    });
    expect(openAi({ model: "text-embedding-3-large", dimensions: 256 }).dimensions).toBe(256);
  });

  it(`sends at most ${OPENAI_MAX_INPUTS_PER_REQUEST} inputs a request, one request after another, and keeps the order`, async () => {
    const m = marker();
    const texts = Array.from({ length: 300 }, (_, i) => `${m} text number ${i}`);
    const vectors = await openAi({ dimensions: 16 }).embed(texts, "document");
    expect(vectors).toEqual(texts.map((t) => fakeEmbedding(t, 16).map(Math.fround)));
    const sent = await requestsOf(m);
    expect(sent.map((r) => (r.body as { input: string[] }).input.length)).toEqual([128, 128, 44]);
  });

  it("makes no request for no texts and refuses an empty text without sending it", async () => {
    const m = marker();
    expect(await openAi().embed([], "document")).toEqual([]);
    expect(await embeddingError(openAi().embed([`${m} fine`, "  "], "document"))).toMatchObject({
      code: "embedding_bad_request",
      retryable: false,
    });
    expect(await requestsOf(m)).toEqual([]);
  });

  it("turns a 429 into a retryable embedding_rate_limited error carrying Retry-After", async () => {
    const m = marker();
    const fault = await control.fault(m, { kind: "rate_limit", retryAfterSeconds: 7 }, { role: "embedding" });
    const error = await embeddingError(openAi().embed([`${m} x`], "document"));
    expect(error).toMatchObject({ code: "embedding_rate_limited", retryable: true, retryAfterSeconds: 7 });
    expect((await fault.state()).hits).toBe(1);
    const [sent] = await requestsOf(m);
    expect(sent).toMatchObject({ status: 429, response: { error: { code: "rate_limit_exceeded" } } });
  });

  it("turns a 500 and a 503 into retryable errors, a 401 and a 400 into final ones", async () => {
    const m = marker();
    await control.fault(m, { kind: "server_error" }, { role: "embedding" });
    await control.fault(m, { kind: "overloaded" }, { role: "embedding" });
    await control.fault(m, { kind: "http_error", status: 401 }, { role: "embedding" });
    // Twice: a 400 to a request for base64 is asked again for floats.
    await control.fault(
      m,
      { kind: "http_error", status: 400, message: "bad input" },
      { role: "embedding", times: 2 },
    );
    const embedder = openAi();
    const outcomes = [];
    for (let i = 0; i < 4; i++) {
      const error = await embeddingError(embedder.embed([`${m} x`], "document"));
      outcomes.push([error.code, error.retryable]);
    }
    expect(outcomes).toEqual([
      ["embedding_server_error", true],
      ["embedding_overloaded", true],
      ["embedding_auth", false],
      ["embedding_bad_request", false],
    ]);
  });

  it("refuses an answer with an embedding missing as a bad response", async () => {
    const m = marker();
    await control.fault(m, { kind: "missing_embedding" }, { role: "embedding" });
    const error = await embeddingError(openAi().embed([`${m} a`, `${m} b`], "document"));
    expect(error).toMatchObject({ code: "embedding_bad_response", retryable: false });
    expect(error.message).toMatch(/asked for 2 embeddings, got 1/);
  });

  it("times out a slow answer as a retryable embedding_timeout, without retrying", async () => {
    const m = marker();
    const fault = await control.fault(m, { kind: "slow", delayMs: 3_000 }, { role: "embedding", times: 5 });
    const started = Date.now();
    const error = await embeddingError(openAi({ timeoutMs: 300 }).embed([`${m} x`], "document"));
    expect(error).toMatchObject({ code: "embedding_timeout", retryable: true });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await fault.state()).hits).toBe(1);
  });

  it("reports an unreachable server as a retryable embedding_connection error", async () => {
    const error = await embeddingError(openAi({ url: "http://127.0.0.1:9/v1" }).embed(["x"], "document"));
    expect(error).toMatchObject({ code: "embedding_connection", retryable: true });
  });
});

describe("the fake server's embeddings", () => {
  const similarity = (a: string, b: string) => cosine(fakeEmbedding(a), fakeEmbedding(b));

  it("are deterministic, unit length and never zero, even for text with no words", () => {
    for (const text of ["The cut-over is on Friday", "!!!", " ", "😀"]) {
      const vector = fakeEmbedding(text);
      expect(vector).toEqual(fakeEmbedding(text));
      expect(Math.hypot(...vector)).toBeCloseTo(1, 10);
    }
    expect(fakeEmbedding("x", 8)).toHaveLength(8);
  });

  it("put spellings of one word close and unrelated texts far", () => {
    const plan = "Plan for the ledger cut-over";
    expect(similarity("cut-over", "cutover")).toBeGreaterThan(0.4);
    expect(similarity("cut-over", "cut over")).toBeCloseTo(1, 10);
    expect(similarity(plan, "ledger cutover plan")).toBeGreaterThan(0.5);
    expect(similarity(plan, "planning the ledger cut over")).toBeGreaterThan(0.7);
    expect(similarity("deadlines", "deadline")).toBeGreaterThan(0.8);
    expect(similarity(plan, "Lunch menu for the offsite")).toBeLessThan(0.2);
  });

  it("come back as base64 when asked, as OpenAI sends them (the SDK's default, which it decodes)", async () => {
    const m = marker();
    const sdk = new OpenAI({ apiKey: "test-key", baseURL: baseUrl, maxRetries: 0 });
    const answer = await sdk.embeddings.create({
      model: "fake-embedding",
      input: [`${m} base64`],
      dimensions: 8,
    });
    const expected = fakeEmbedding(`${m} base64`, 8).map(Math.fround);
    expect(answer.data[0]!.embedding).toEqual(expected);
    const [sent] = await requestsOf(m);
    expect(sent!.body).toMatchObject({ encoding_format: "base64" });
    expect(typeof (sent!.response as { data: { embedding: unknown }[] }).data[0]!.embedding).toBe("string");
  });

  it("refuse what OpenAI refuses: no input, an empty string, a bad size", async () => {
    const post = (body: unknown) =>
      fetch(`${baseUrl}/embeddings`, {
        method: "POST",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (const body of [
      { model: "m", input: [] },
      { model: "m", input: [""] },
      { model: "m", input: ["x"], dimensions: 0 },
      { model: "m", input: ["x"], encoding_format: "int8" },
      { input: ["x"] },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    }
  });
});

/** A hand-written fake of the Ai binding: records calls, answers like Workers AI's BGE models. */
class FakeAi implements AiBinding {
  readonly calls: { model: string; inputs: Record<string, unknown> }[] = [];
  constructor(
    private readonly answer: (texts: string[], model: string) => unknown = (texts) => ({
      shape: [texts.length, 384],
      data: texts.map((t) => fakeEmbedding(t, 384)),
      pooling: "cls",
    }),
  ) {}
  async run(model: string, inputs: Record<string, unknown>): Promise<unknown> {
    this.calls.push({ model, inputs });
    return this.answer(inputs.text as string[], model);
  }
}

const failing = (message: string) =>
  new FakeAi(() => {
    throw new Error(message);
  });

describe("the Workers AI embedder over the AI binding", () => {
  const small = "@cf/baai/bge-small-en-v1.5";

  it("embeds documents with cls pooling and queries with BGE's retrieval instruction", async () => {
    const ai = new FakeAi();
    const embedder = createWorkersAiEmbedder({ ai, model: small });
    expect(embedder).toMatchObject({ model: `workers-ai:${small}`, dimensions: 384, maxInputTokens: 512 });
    const [doc] = await embedder.embed(["the ledger cut-over"], "document");
    const [query] = await embedder.embed(["cutover"], "query");
    expect(doc).toEqual(fakeEmbedding("the ledger cut-over", 384));
    expect(query).toEqual(fakeEmbedding(`${BGE_QUERY_INSTRUCTION}cutover`, 384));
    expect(ai.calls).toEqual([
      { model: small, inputs: { text: ["the ledger cut-over"], pooling: "cls" } },
      { model: small, inputs: { text: [`${BGE_QUERY_INSTRUCTION}cutover`], pooling: "cls" } },
    ]);
  });

  it("knows the sizes of the BGE models, and bge-m3's longer input (truncated rather than refused)", async () => {
    const ai = new FakeAi((texts) => ({ response: texts.map((t) => fakeEmbedding(t, 1024)) }));
    const dims = (model: string) => createWorkersAiEmbedder({ ai, model }).dimensions;
    expect(["small", "base", "large"].map((s) => dims(`@cf/baai/bge-${s}-en-v1.5`))).toEqual([
      384, 768, 1024,
    ]);
    const m3 = createWorkersAiEmbedder({ ai, model: "@cf/baai/bge-m3" });
    expect(m3).toMatchObject({ dimensions: 1024, maxInputTokens: 8192 });
    // bge-m3 needs no query instruction; its answer may come as `response`.
    expect(await m3.embed(["question"], "query")).toEqual([fakeEmbedding("question", 1024)]);
    expect(ai.calls.at(-1)?.inputs).toEqual({ text: ["question"], truncate_inputs: true });
  });

  it(`sends at most ${WORKERS_AI_MAX_TEXTS_PER_CALL} texts a call and keeps the order`, async () => {
    const ai = new FakeAi();
    const texts = Array.from({ length: 250 }, (_, i) => `text ${i}`);
    const vectors = await createWorkersAiEmbedder({ ai, model: small }).embed(texts, "document");
    expect(vectors).toEqual(texts.map((t) => fakeEmbedding(t, 384)));
    expect(ai.calls.map((c) => (c.inputs.text as string[]).length)).toEqual([100, 100, 50]);
  });

  it("maps Workers AI's error codes: capacity and daily allocation retryable, bad model and account final", async () => {
    const embed = (ai: FakeAi) => createWorkersAiEmbedder({ ai, model: small }).embed(["x"], "document");
    expect(
      await embeddingError(embed(failing("3040: Capacity temporarily exceeded, please try again."))),
    ).toMatchObject({
      code: "embedding_rate_limited",
      retryable: true,
    });
    const daily = await embeddingError(
      embed(failing("AiError: 3036: You have used up your daily free allocation")),
    );
    expect(daily).toMatchObject({ code: "embedding_rate_limited", retryable: true });
    expect(daily.retryAfterSeconds).toBeGreaterThan(0);
    expect(daily.retryAfterSeconds).toBeLessThanOrEqual(86_400);
    expect(await embeddingError(embed(failing("5007: No such model @cf/x or task")))).toMatchObject({
      code: "embedding_bad_request",
      retryable: false,
    });
    expect(await embeddingError(embed(failing("3023: Service unavailable for account")))).toMatchObject({
      code: "embedding_auth",
      retryable: false,
    });
    expect(
      await embeddingError(embed(failing("InferenceUpstreamError: upstream connect error"))),
    ).toMatchObject({
      code: "embedding_server_error",
      retryable: true,
    });
  });

  it("refuses an answer with too few vectors, vectors of the wrong size or a zero vector", async () => {
    const answers: ((texts: string[]) => unknown)[] = [
      (texts) => ({ data: texts.slice(1).map((t) => fakeEmbedding(t, 384)) }),
      (texts) => ({ data: texts.map((t) => fakeEmbedding(t, 383)) }),
      (texts) => ({ data: texts.map(() => new Array(384).fill(0)) }),
      () => ({ request_id: "queued" }),
    ];
    for (const answer of answers) {
      const embedder = createWorkersAiEmbedder({ ai: new FakeAi(answer), model: small });
      expect(await embeddingError(embedder.embed(["a", "b"], "document"))).toMatchObject({
        code: "embedding_bad_response",
        retryable: false,
      });
    }
  });
});

describe("createEmbedder", () => {
  const base = { DATABASE_URL: "postgres://u@db.example/app", AUTH_JWT_SECRET: "s".repeat(40) };
  const settingsOf = (extra: Record<string, string>) => parseConfig({ ...base, ...extra }).embeddings;
  const badSettings = (extra: Record<string, string>, platform: { ai?: AiBinding } = {}): string[] => {
    try {
      createEmbedder(settingsOf(extra), platform);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).issues.map((i) => i.setting).sort();
    }
    throw new Error("the configuration was accepted");
  };

  it("builds nothing without EMBEDDING_MODEL: search is keyword-only", () => {
    expect(settingsOf({})).toBeUndefined();
    expect(createEmbedder(settingsOf({}), {})).toBeNull();
  });

  it("builds the Workers AI embedder over the AI binding", () => {
    const embedder = createEmbedder(settingsOf({ EMBEDDING_MODEL: "workers-ai:@cf/baai/bge-base-en-v1.5" }), {
      ai: new FakeAi(),
    });
    expect(embedder).toMatchObject({ model: "workers-ai:@cf/baai/bge-base-en-v1.5", dimensions: 768 });
  });

  it("builds the OpenAI embedder on EMBEDDING_BASE_URL, else OPENAI_BASE_URL, with the configured size", async () => {
    const m = marker();
    const settings = settingsOf({
      EMBEDDING_MODEL: "openai:fake-embedding",
      EMBEDDING_DIMENSIONS: "32",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      EMBEDDING_BASE_URL: baseUrl,
    });
    expect(settings).toEqual({
      provider: "openai",
      model: "fake-embedding",
      dimensions: 32,
      baseUrl,
      apiKey: undefined,
    });
    const [vector] = await createEmbedder(settings, {})!.embed([`${m} keyless`], "document");
    expect(vector).toHaveLength(32);
    expect(settingsOf({ EMBEDDING_MODEL: "openai:m", OPENAI_BASE_URL: baseUrl })?.baseUrl).toBe(baseUrl);
  });

  it("is wired to the fake server by the test bindings (OPENAI_BASE_URL)", async () => {
    const m = marker();
    const embedder = createEmbedder(
      parseConfig({ ...env, EMBEDDING_MODEL: "openai:fake-embedding" }).embeddings,
      {},
    );
    expect(await embedder!.embed([`${m} hello`], "document")).toEqual([
      fakeEmbedding(`${m} hello`).map(Math.fround),
    ]);
  });

  it("names the setting that cannot work", () => {
    expect(badSettings({ EMBEDDING_MODEL: "cohere:embed-v4" })).toEqual(["EMBEDDING_MODEL"]);
    expect(badSettings({ EMBEDDING_MODEL: "openai:" })).toEqual(["EMBEDDING_MODEL"]);
    for (const dimensions of ["abc", "0", "1.5", "4001"]) {
      expect(
        badSettings({ EMBEDDING_MODEL: "openai:m", OPENAI_API_KEY: "k", EMBEDDING_DIMENSIONS: dimensions }),
      ).toEqual(["EMBEDDING_DIMENSIONS"]);
    }
    expect(badSettings({ EMBEDDING_DIMENSIONS: "384" })).toEqual(["EMBEDDING_DIMENSIONS"]);
    expect(badSettings({ EMBEDDING_BASE_URL: "not a url", EMBEDDING_MODEL: "openai:m" })).toEqual([
      "EMBEDDING_BASE_URL",
    ]);
    // openai with neither a key nor a base URL.
    expect(badSettings({ EMBEDDING_MODEL: "openai:text-embedding-3-small" })).toEqual(["EMBEDDING_MODEL"]);
    expect(
      badSettings({
        EMBEDDING_MODEL: "openai:text-embedding-3-small",
        OPENAI_API_KEY: "k",
        EMBEDDING_DIMENSIONS: "2048",
      }),
    ).toEqual(["EMBEDDING_DIMENSIONS"]);
    // workers-ai without the binding, through a base URL, or at a size the model does not have.
    expect(badSettings({ EMBEDDING_MODEL: "workers-ai:@cf/baai/bge-small-en-v1.5" })).toEqual([
      "EMBEDDING_MODEL",
    ]);
    expect(
      badSettings({ EMBEDDING_MODEL: "workers-ai:@cf/baai/bge-small-en-v1.5", EMBEDDING_BASE_URL: baseUrl }),
    ).toEqual(["EMBEDDING_BASE_URL"]);
    expect(
      badSettings(
        { EMBEDDING_MODEL: "workers-ai:@cf/baai/bge-small-en-v1.5", EMBEDDING_DIMENSIONS: "768" },
        { ai: new FakeAi() },
      ),
    ).toEqual(["EMBEDDING_DIMENSIONS"]);
  });
});
