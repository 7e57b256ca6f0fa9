/** The factory the composition root calls: one LlmClient per configured `provider:model`. */
import type { Config, ModelRef } from "../config/config";
import { AppError } from "../domain/errors";
import type { LlmClient } from "../domain/llm";
import { createAnthropicClient } from "./anthropic";
import { createOpenAiClient } from "./openai";

/** Sent when a base URL is set but no key: local OpenAI-compatible servers (Ollama, vLLM) ignore it. */
const KEYLESS_PLACEHOLDER = "not-needed";

/**
 * Builds the client for `ref` from the LLM settings. Throws AppError("llm_not_configured") when the
 * provider has neither an API key nor a base URL (a keyless base URL is a local compatible server).
 */
export function createLlmClient(ref: ModelRef, llm: Config["llm"]): LlmClient {
  const settings = llm[ref.provider];
  if (!settings.apiKey && !settings.baseUrl) {
    const setting = ref.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
    throw new AppError(
      "llm_not_configured",
      `No API key for ${ref.provider}: set ${setting} (or a base URL for a compatible server).`,
    );
  }
  const options = {
    model: ref.model,
    apiKey: settings.apiKey ?? KEYLESS_PLACEHOLDER,
    baseUrl: settings.baseUrl,
    timeoutMs: llm.timeoutMs,
  };
  return ref.provider === "anthropic" ? createAnthropicClient(options) : createOpenAiClient(options);
}
