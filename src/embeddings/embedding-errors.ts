/** SDK and binding failures as the embeddings port's EmbeddingError. */
import { EmbeddingError, type EmbeddingErrorCode } from "../domain/embeddings";
import { LlmError } from "../domain/llm";
import { type SdkErrorClasses, translateSdkError } from "../llm/sdk-errors";

/**
 * The OpenAI SDK's errors, classified as the LLM adapters classify them (llm/sdk-errors.ts: 429 rate
 * limited with Retry-After, 5xx/408/409, timeouts and connection failures retryable, other 4xx not), under
 * the embedding codes. Anything that is not the SDK's (a programming error) is returned unchanged.
 */
export function embeddingErrorFromSdk(err: unknown, provider: string, classes: SdkErrorClasses): unknown {
  const translated = translateSdkError(err, provider, classes);
  if (!(translated instanceof LlmError)) return translated;
  const code = translated.code.replace(/^llm_/, "embedding_") as EmbeddingErrorCode;
  return new EmbeddingError(code, translated.message, translated.retryable, translated.retryAfterSeconds);
}
