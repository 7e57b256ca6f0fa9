/**
 * Embedder over an OpenAI-compatible `/embeddings` endpoint through the official SDK's
 * `embeddings.create`. The base URL is configurable (Ollama, vLLM, LiteLLM, ... and the tests' fake).
 *
 * Asks for `encoding_format: "base64"` (little-endian float32): a third the size of the floats as JSON
 * and much cheaper to decode than to parse, which is most of the worker's CPU for an embedded item. Asked
 * explicitly, the SDK hands the answer over as it came, so a server that sends floats anyway is read as
 * floats; one that refuses base64 (a 400) is asked for floats from then on. `dimensions` is sent only when
 * configured (only some models take it). Inputs are sent in batches within OpenAI's limits (2,048 inputs and 300,000 tokens a
 * request), one batch at a time.
 */
import type { CreateEmbeddingResponse, EmbeddingCreateParams } from "openai/resources/embeddings";
import { batchesOf } from "../domain/batches";
import { checkVectors, type Embedder, EmbeddingError, type EmbeddingPurpose } from "../domain/embeddings";
import { OPENAI_ERROR_CLASSES, openAiSdk } from "../llm/openai-sdk";
import { embeddingErrorFromSdk } from "./embedding-errors";

/** Inputs per request: well under OpenAI's 2,048, so an answer of 1,536-float vectors stays a few MB. */
export const OPENAI_MAX_INPUTS_PER_REQUEST = 128;
/** Estimated tokens per request, under OpenAI's 300,000 (estimated at 3 characters a token, on the safe side). */
export const OPENAI_MAX_TOKENS_PER_REQUEST = 250_000;
/** For a model this adapter does not know: a conservative input size (chunks are sized from it). */
const UNKNOWN_MODEL_MAX_INPUT_TOKENS = 512;

/** The documented models: vector length without `dimensions`, and the longest input. */
export const OPENAI_EMBEDDING_MODELS: Record<string, { dimensions: number; maxInputTokens: number }> = {
  "text-embedding-3-small": { dimensions: 1536, maxInputTokens: 8191 },
  "text-embedding-3-large": { dimensions: 3072, maxInputTokens: 8191 },
  "text-embedding-ada-002": { dimensions: 1536, maxInputTokens: 8191 },
};

export interface OpenAiEmbedderOptions {
  model: string;
  apiKey: string;
  /** Unset for api.openai.com. */
  baseUrl?: string;
  /** Sent as `dimensions` (text-embedding-3-* shorten their vectors to it). */
  dimensions?: number;
  timeoutMs: number;
}

export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const sdk = openAiSdk(options);
  const known = OPENAI_EMBEDDING_MODELS[options.model];
  const dimensions = options.dimensions ?? known?.dimensions ?? null;
  const provider = `openai:${options.model}`;
  // Floats after a server refused base64, for this embedder's lifetime.
  let encoding: "base64" | "float" = "base64";
  const create = async (params: EmbeddingCreateParams, signal?: AbortSignal) => {
    try {
      return await sdk.embeddings.create({ ...params, encoding_format: encoding }, { signal });
    } catch (err) {
      const error = embeddingErrorFromSdk(err, provider, OPENAI_ERROR_CLASSES);
      const refused = error instanceof EmbeddingError && error.code === "embedding_bad_request";
      if (encoding === "float" || !refused) throw error;
      encoding = "float";
      try {
        return await sdk.embeddings.create({ ...params, encoding_format: encoding }, { signal });
      } catch (retryErr) {
        throw embeddingErrorFromSdk(retryErr, provider, OPENAI_ERROR_CLASSES);
      }
    }
  };
  return {
    model: provider,
    dimensions,
    maxInputTokens: known?.maxInputTokens ?? UNKNOWN_MODEL_MAX_INPUT_TOKENS,
    async embed(texts: string[], _purpose: EmbeddingPurpose, callOptions = {}): Promise<number[][]> {
      if (texts.length === 0) return [];
      if (texts.some((t) => t.trim() === "")) {
        throw new EmbeddingError("embedding_bad_request", `${provider}: cannot embed an empty text`, false);
      }
      const out: number[][] = [];
      const batches = batchesOf(texts, {
        maxItems: OPENAI_MAX_INPUTS_PER_REQUEST,
        maxWeight: OPENAI_MAX_TOKENS_PER_REQUEST,
        weight: (text) => Math.ceil(text.length / 3),
      });
      for (const batch of batches) {
        const params: EmbeddingCreateParams = { model: options.model, input: batch };
        if (options.dimensions !== undefined) params.dimensions = options.dimensions;
        const response = await create(params, callOptions.signal);
        // Every batch's vectors must have the length of the first batch's, when the model's is not known.
        const expected = dimensions ?? out[0]?.length ?? null;
        out.push(
          ...checkVectors(provider, inIndexOrder(provider, response, batch.length), batch.length, expected),
        );
      }
      return out;
    },
  };
}

/** The answer's vectors by their `index` (OpenAI sends them in order; compatible servers may not). */
function inIndexOrder(provider: string, response: CreateEmbeddingResponse, count: number): number[][] {
  const data = Array.isArray(response?.data) ? response.data : [];
  if (data.length !== count) {
    throw new EmbeddingError(
      "embedding_bad_response",
      `${provider}: asked for ${count} embeddings, got ${data.length}`,
      false,
    );
  }
  const vectors: number[][] = new Array(count);
  for (const [position, entry] of data.entries()) {
    const index = typeof entry?.index === "number" ? entry.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) {
      throw new EmbeddingError(
        "embedding_bad_response",
        `${provider}: unexpected embedding index ${index}`,
        false,
      );
    }
    const vector = embeddingVector(entry.embedding);
    if (!vector) {
      throw new EmbeddingError(
        "embedding_bad_response",
        `${provider}: embedding ${index} is neither a list of floats nor base64 float32`,
        false,
      );
    }
    vectors[index] = vector;
  }
  return vectors;
}

/** An answer's embedding: a list of floats, or base64 of little-endian float32s; null when neither. */
export function embeddingVector(embedding: unknown): number[] | null {
  if (Array.isArray(embedding)) return embedding as number[];
  if (typeof embedding !== "string") return null;
  let bytes: string;
  try {
    bytes = atob(embedding);
  } catch {
    return null;
  }
  if (bytes.length === 0 || bytes.length % 4 !== 0) return null;
  const view = new DataView(new ArrayBuffer(bytes.length));
  for (let i = 0; i < bytes.length; i++) view.setUint8(i, bytes.charCodeAt(i));
  const vector = new Array<number>(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
