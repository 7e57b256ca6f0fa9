/**
 * The eval's recording proxy in front of the fake LLM: it counts embedding calls and the input tokens their
 * answers report, apart from the chat calls, and hands each count out once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordingProxy, startRecordingProxy } from "../../eval/recording-proxy";
import { type FakeLlm, startFakeLlm } from "../support/node/fake-llm/server";

let fake: FakeLlm;
let proxy: RecordingProxy;

beforeAll(async () => {
  fake = await startFakeLlm();
  proxy = await startRecordingProxy({
    anthropic: fake.anthropicBaseUrl,
    openai: fake.openaiBaseUrl,
    embedding: fake.openaiBaseUrl,
  });
});

afterAll(async () => {
  await proxy?.close();
  await fake?.close();
});

const embed = (body: unknown) =>
  fetch(`${proxy.embeddingBaseUrl}/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer fake-key" },
    body: JSON.stringify(body),
  });

describe("the eval's recording proxy", () => {
  it("counts an embedding call with the prompt tokens its answer reports, once", async () => {
    proxy.takeEmbeddings();
    const res = await embed({
      model: "fake-embedding",
      input: ["The Kestrel cut-over is on 10 March", "Dual-write lasts 30 days"],
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { data: unknown[]; usage: { prompt_tokens: number } };
    expect(answer.data).toHaveLength(2);
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    expect(proxy.takeEmbeddings()).toEqual({ calls: 1, inputTokens: answer.usage.prompt_tokens });
    expect(proxy.takeEmbeddings()).toEqual({ calls: 0, inputTokens: 0 });
  });

  it("counts a refused embedding call without tokens", async () => {
    proxy.takeEmbeddings();
    const res = await embed({ model: "fake-embedding" });
    expect(res.status).toBe(400);
    expect(proxy.takeEmbeddings()).toEqual({ calls: 1, inputTokens: 0 });
  });

  it("does not count chat calls as embedding calls", async () => {
    proxy.takeEmbeddings();
    const res = await fetch(`${proxy.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer fake-key" },
      body: JSON.stringify({ model: "fake-judge", messages: [{ role: "user", content: "Hello" }] }),
    });
    expect(res.status).toBe(200);
    expect(proxy.takeEmbeddings()).toEqual({ calls: 0, inputTokens: 0 });
  });
});
