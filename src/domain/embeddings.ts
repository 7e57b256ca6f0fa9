/**
 * The embeddings port: text in, one vector per text out. Adapters (embeddings/openai.ts over the OpenAI
 * SDK, embeddings/workers-ai.ts over the Workers AI binding) batch within their provider's limits and
 * translate failures to EmbeddingError. Without a configured embedder the service is keyword-only.
 */

export type EmbeddingProvider = "workers-ai" | "openai";

/** The embedder's settings (embeddings/create-embedder.ts builds it); absent when EMBEDDING_MODEL is unset. */
export interface EmbeddingSettings {
  provider: EmbeddingProvider;
  model: string;
  dimensions?: number;
  /** openai only: EMBEDDING_BASE_URL, else OPENAI_BASE_URL; unset means api.openai.com. */
  baseUrl?: string;
  /** openai only: OPENAI_API_KEY. */
  apiKey?: string;
}

/**
 * What a text is embedded for. Some models embed a search query differently from the passages it should
 * find (e.g. BGE v1.5 prefixes queries with an instruction); for the others both are the same.
 */
export type EmbeddingPurpose = "document" | "query";

export interface Embedder {
  /** "provider:model" as configured (e.g. "openai:text-embedding-3-small"); stored with every vector. */
  readonly model: string;
  /**
   * The length of every vector it returns, when known before the first call (configured, or the model's
   * documented size); null for a model it does not know, whose first answer tells.
   */
  readonly dimensions: number | null;
  /** The most tokens of one input the model reads: what chunking sizes chunks by (domain/chunks.ts). */
  readonly maxInputTokens: number;
  /**
   * One vector per text, in the order of `texts`, each of the same length and never all zeros. An empty
   * list is answered without a call. Throws EmbeddingError.
   */
  embed(texts: string[], purpose: EmbeddingPurpose, options?: { signal?: AbortSignal }): Promise<number[][]>;
}

export type EmbeddingErrorCode =
  | "embedding_rate_limited"
  | "embedding_overloaded"
  | "embedding_server_error"
  | "embedding_timeout"
  | "embedding_connection"
  | "embedding_auth"
  | "embedding_bad_request"
  | "embedding_bad_response";

/**
 * A failed embedding call. `retryable` says whether the same call may succeed later (a queue consumer
 * retries it, after `retryAfterSeconds` when the provider said how long).
 */
export class EmbeddingError extends Error {
  constructor(
    readonly code: EmbeddingErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "EmbeddingError";
  }
}

/**
 * Checks an adapter's answer against the port's promise (one vector per text, one length, finite, not
 * all zeros), so a provider's malformed answer is an error here instead of a bad row in the database.
 */
export function checkVectors(
  provider: string,
  vectors: readonly (readonly number[])[],
  expectedCount: number,
  expectedDimensions: number | null,
): number[][] {
  const fail = (why: string) => new EmbeddingError("embedding_bad_response", `${provider}: ${why}`, false);
  if (vectors.length !== expectedCount) {
    throw fail(`asked for ${expectedCount} embeddings, got ${vectors.length}`);
  }
  const dimensions = expectedDimensions ?? vectors[0]?.length ?? 0;
  return vectors.map((vector, i) => {
    if (!Array.isArray(vector) || vector.length === 0) throw fail(`embedding ${i} is empty`);
    if (vector.length !== dimensions) {
      throw fail(`embedding ${i} has ${vector.length} dimensions, expected ${dimensions}`);
    }
    let nonZero = false;
    for (const x of vector) {
      if (typeof x !== "number" || !Number.isFinite(x)) throw fail(`embedding ${i} has a non-finite value`);
      if (x !== 0) nonZero = true;
    }
    if (!nonZero) throw fail(`embedding ${i} is all zeros (no cosine distance to it)`);
    return [...vector];
  });
}
