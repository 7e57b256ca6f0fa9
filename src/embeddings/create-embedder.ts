/**
 * The factory the composition root calls: the configured Embedder (EMBEDDING_MODEL, parsed and validated
 * by config/config.ts), or null when none is configured (search is then keyword-only).
 */
import { ConfigError } from "../config/config";
import type { Embedder, EmbeddingSettings } from "../domain/embeddings";
import { createOpenAiEmbedder, OPENAI_EMBEDDING_MODELS } from "./openai";
import { type AiBinding, createWorkersAiEmbedder, WORKERS_AI_EMBEDDING_MODELS } from "./workers-ai";

/** Sent when a base URL is set but no key: local OpenAI-compatible servers (Ollama, vLLM) ignore it. */
const KEYLESS_PLACEHOLDER = "not-needed";
/** An embedding call is short: a batch of chunks or one query. */
export const EMBEDDING_TIMEOUT_MS = 30_000;

/** Throws ConfigError for settings that cannot work (no AI binding, a size the model does not have). */
export function createEmbedder(
  settings: EmbeddingSettings | undefined,
  platform: { ai?: AiBinding },
): Embedder | null {
  if (!settings) return null;
  if (settings.provider === "workers-ai") {
    if (!platform.ai) {
      throw new ConfigError([
        { setting: "EMBEDDING_MODEL", message: 'workers-ai needs the AI binding ([ai] binding = "AI")' },
      ]);
    }
    const known = WORKERS_AI_EMBEDDING_MODELS[settings.model];
    if (known && settings.dimensions !== undefined && settings.dimensions !== known.dimensions) {
      throw new ConfigError([
        {
          setting: "EMBEDDING_DIMENSIONS",
          message: `${settings.model} makes ${known.dimensions}-dimension vectors`,
        },
      ]);
    }
    return createWorkersAiEmbedder({
      ai: platform.ai,
      model: settings.model,
      dimensions: settings.dimensions,
    });
  }
  const known = OPENAI_EMBEDDING_MODELS[settings.model];
  if (known && settings.dimensions !== undefined && settings.dimensions > known.dimensions) {
    throw new ConfigError([
      {
        setting: "EMBEDDING_DIMENSIONS",
        message: `${settings.model} makes at most ${known.dimensions}-dimension vectors`,
      },
    ]);
  }
  return createOpenAiEmbedder({
    model: settings.model,
    apiKey: settings.apiKey ?? KEYLESS_PLACEHOLDER,
    baseUrl: settings.baseUrl,
    dimensions: settings.dimensions,
    timeoutMs: EMBEDDING_TIMEOUT_MS,
  });
}
