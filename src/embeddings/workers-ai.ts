/**
 * Embedder over a Workers AI binding (`[ai] binding = "AI"`): `env.AI.run(model, { text: [...] })`.
 *
 * The BGE models, as documented on developers.cloudflare.com/workers-ai/models/ (checked 2026-12):
 *   @cf/baai/bge-small-en-v1.5   384 dimensions, 512 input tokens
 *   @cf/baai/bge-base-en-v1.5    768 dimensions, 512 input tokens
 *   @cf/baai/bge-large-en-v1.5  1024 dimensions, 512 input tokens
 *   @cf/baai/bge-m3             1024 dimensions (BAAI's model card: 8,192 input tokens; Cloudflare's page
 *                               states no limit, so its `truncate_inputs` is set rather than trusting it)
 * Up to 100 texts a call (Cloudflare's documented batch bound for these models). The v1.5 models get
 * `pooling: "cls"` (Cloudflare's recommendation; its vectors are not comparable with the default "mean"
 * pooling, so the choice is fixed here for every call) and, for a query, BAAI's retrieval instruction.
 *
 * There is no local simulation of the binding: tests use a hand-written fake of `run`.
 */

import { batchesOf } from "../domain/batches";
import { checkVectors, type Embedder, EmbeddingError, type EmbeddingPurpose } from "../domain/embeddings";

/** The part of the `Ai` binding this adapter uses (the real `Ai` satisfies it). */
export interface AiBinding {
  run(
    model: string & {},
    inputs: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
}

export const WORKERS_AI_MAX_TEXTS_PER_CALL = 100;
/** For a model this adapter does not know: a conservative input size (chunks are sized from it). */
const UNKNOWN_MODEL_MAX_INPUT_TOKENS = 512;

/** BAAI's instruction for short queries searching passages (BGE v1.5 English models). */
export const BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: ";

interface KnownModel {
  dimensions: number;
  maxInputTokens: number;
  /** The request fields every call carries. */
  extra: Record<string, unknown>;
  queryInstruction?: string;
}

export const WORKERS_AI_EMBEDDING_MODELS: Record<string, KnownModel> = {
  "@cf/baai/bge-small-en-v1.5": {
    dimensions: 384,
    maxInputTokens: 512,
    extra: { pooling: "cls" },
    queryInstruction: BGE_QUERY_INSTRUCTION,
  },
  "@cf/baai/bge-base-en-v1.5": {
    dimensions: 768,
    maxInputTokens: 512,
    extra: { pooling: "cls" },
    queryInstruction: BGE_QUERY_INSTRUCTION,
  },
  "@cf/baai/bge-large-en-v1.5": {
    dimensions: 1024,
    maxInputTokens: 512,
    extra: { pooling: "cls" },
    queryInstruction: BGE_QUERY_INSTRUCTION,
  },
  "@cf/baai/bge-m3": { dimensions: 1024, maxInputTokens: 8192, extra: { truncate_inputs: true } },
};

export interface WorkersAiEmbedderOptions {
  ai: AiBinding;
  model: string;
  /** Only for a model not in WORKERS_AI_EMBEDDING_MODELS (a known model's size is its own). */
  dimensions?: number;
}

export function createWorkersAiEmbedder(options: WorkersAiEmbedderOptions): Embedder {
  const known = WORKERS_AI_EMBEDDING_MODELS[options.model];
  const provider = `workers-ai:${options.model}`;
  const dimensions = known?.dimensions ?? options.dimensions ?? null;
  return {
    model: provider,
    dimensions,
    maxInputTokens: known?.maxInputTokens ?? UNKNOWN_MODEL_MAX_INPUT_TOKENS,
    async embed(texts: string[], purpose: EmbeddingPurpose, callOptions = {}): Promise<number[][]> {
      if (texts.length === 0) return [];
      if (texts.some((t) => t.trim() === "")) {
        throw new EmbeddingError("embedding_bad_request", `${provider}: cannot embed an empty text`, false);
      }
      const prefix = purpose === "query" ? (known?.queryInstruction ?? "") : "";
      const out: number[][] = [];
      const batches = batchesOf(texts, {
        maxItems: WORKERS_AI_MAX_TEXTS_PER_CALL,
        maxWeight: Number.POSITIVE_INFINITY,
        weight: () => 1,
      });
      for (const batch of batches) {
        let answer: unknown;
        try {
          answer = await options.ai.run(
            options.model,
            { text: batch.map((t) => prefix + t), ...known?.extra },
            { signal: callOptions.signal },
          );
        } catch (err) {
          throw fromBindingError(err, provider);
        }
        const expected = dimensions ?? out[0]?.length ?? null;
        out.push(...checkVectors(provider, vectorsOf(answer, provider), batch.length, expected));
      }
      return out;
    },
  };
}

/** `{ shape, data }` for the v1.5 models and bge-m3's `text` input; bge-m3 may answer `{ response }`. */
function vectorsOf(answer: unknown, provider: string): number[][] {
  if (typeof answer === "object" && answer !== null) {
    const { data, response } = answer as { data?: unknown; response?: unknown };
    const vectors = Array.isArray(data) ? data : response;
    if (Array.isArray(vectors) && vectors.every(Array.isArray)) return vectors as number[][];
  }
  throw new EmbeddingError("embedding_bad_response", `${provider}: the answer has no embeddings`, false);
}

/**
 * The binding throws plain Errors whose message carries Workers AI's internal code
 * (developers.cloudflare.com/workers-ai/platform/errors/): 3040 out of capacity and 3036 daily allocation
 * used up are 429s; 3007/3008 timeouts; 3006, 3003, 5004, 5007, 3042 bad requests; 3023, 3041, 5016, 5018
 * account refusals. Anything else from the binding (an upstream failure, a dropped connection) is taken as
 * a retryable server error.
 */
export function fromBindingError(err: unknown, provider: string): EmbeddingError {
  if (err instanceof EmbeddingError) return err;
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const message = `${provider}: ${text}`;
  if (err instanceof Error && err.name === "AbortError") {
    return new EmbeddingError("embedding_timeout", `${provider}: the request was aborted`, true);
  }
  const code = Number(/\b(3\d{3}|5\d{3})\b/.exec(text)?.[1]);
  switch (code) {
    case 3040:
      return new EmbeddingError("embedding_rate_limited", message, true);
    case 3036:
      // The free daily allocation: it resets at 00:00 UTC.
      return new EmbeddingError("embedding_rate_limited", message, true, secondsToUtcMidnight(new Date()));
    case 3007:
    case 3008:
      return new EmbeddingError("embedding_timeout", message, true);
    case 3003:
    case 3006:
    case 3042:
    case 5004:
    case 5007:
      return new EmbeddingError("embedding_bad_request", message, false);
    case 3023:
    case 3041:
    case 5016:
    case 5018:
      return new EmbeddingError("embedding_auth", message, false);
    default:
      return new EmbeddingError("embedding_server_error", message, true);
  }
}

function secondsToUtcMidnight(now: Date): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}
