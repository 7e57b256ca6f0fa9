/**
 * The official OpenAI SDK as both of its adapters build it: the chat client (llm/openai.ts) and the
 * embedder (embeddings/openai.ts).
 */
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from "openai";
import type { SdkErrorClasses } from "./sdk-errors";

const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** The SDK's error classes, for translateSdkError. */
export const OPENAI_ERROR_CLASSES: SdkErrorClasses = {
  APIError,
  APIUserAbortError,
  APIConnectionTimeoutError,
  APIConnectionError,
  BaseError: OpenAIError,
};

export function openAiSdk(options: { apiKey: string; baseUrl?: string; timeoutMs: number }): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    // Explicit, so the SDK never falls back to process.env (populated from bindings under nodejs_compat).
    baseURL: options.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
    timeout: options.timeoutMs,
    // The caller decides about retries: the subject's Durable Object for a run (with backoff and a ledger
    // entry per attempt), the queue consumer or the search for an embedding.
    maxRetries: 0,
  });
}
