/** The factory the composition root calls: one LlmClient per configured `provider:model`. */
import type { LlmClient, LlmSettings, ModelRef } from "../domain/llm";
import { createAnthropicClient } from "./anthropic";
import { createOpenAiClient } from "./openai";

/** Sent when a base URL is set but no key: local OpenAI-compatible servers (Ollama, vLLM) ignore it. */
const KEYLESS_PLACEHOLDER = "not-needed";

/**
 * Builds the client for `ref` from the LLM settings. Whether the settings suffice (a key or a base URL) is
 * decided once, by the composition root, before it calls this.
 */
export function createLlmClient(ref: ModelRef, llm: LlmSettings): LlmClient {
  const settings = llm[ref.provider];
  const options = {
    model: ref.model,
    apiKey: settings.apiKey ?? KEYLESS_PLACEHOLDER,
    baseUrl: settings.baseUrl,
    timeoutMs: llm.timeoutMs,
  };
  return ref.provider === "anthropic" ? createAnthropicClient(options) : createOpenAiClient(options);
}
