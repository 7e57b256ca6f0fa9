/**
 * OpenAI Embeddings wire format (POST /v1/embeddings): request validation as the real API does it, and
 * answers in float or base64 (little-endian float32, what the SDK decodes when it asked for base64).
 */
import { DEFAULT_FAKE_EMBEDDING_DIMENSIONS, fakeEmbedding } from "./embedding-vectors";
import { estimateTokens } from "./text";
import type { WireError } from "./wire";

/** OpenAI's own bounds. */
export const MAX_EMBEDDING_INPUTS = 2048;
const MAX_DIMENSIONS = 4096;

export interface EmbeddingsRequest {
  model: string;
  inputs: string[];
  dimensions: number;
  encoding: "float" | "base64";
}

const bad = (message: string): WireError => ({ status: 400, message });

export function parseEmbeddingsRequest(body: unknown): EmbeddingsRequest | WireError {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return bad("We could not parse the JSON body of your request.");
  }
  const b = body as Record<string, unknown>;
  if (typeof b.model !== "string" || b.model === "") return bad("you must provide a model parameter");
  const inputs = typeof b.input === "string" ? [b.input] : b.input;
  if (!Array.isArray(inputs) || inputs.length === 0) {
    return bad(
      "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
    );
  }
  if (inputs.length > MAX_EMBEDDING_INPUTS) {
    return bad(`'$.input' is invalid: at most ${MAX_EMBEDDING_INPUTS} inputs a request.`);
  }
  if (!inputs.every((i): i is string => typeof i === "string")) {
    return bad("'$.input' is invalid: this fake takes strings only, not token arrays.");
  }
  if (inputs.some((i) => i === "")) {
    return bad("'$.input' is invalid: an input cannot be an empty string.");
  }
  let dimensions = DEFAULT_FAKE_EMBEDDING_DIMENSIONS;
  if (b.dimensions !== undefined) {
    if (typeof b.dimensions !== "number" || !Number.isInteger(b.dimensions) || b.dimensions < 1) {
      return bad(`Invalid value for 'dimensions' = ${String(b.dimensions)}. Must be an integer >= 1.`);
    }
    if (b.dimensions > MAX_DIMENSIONS) {
      return bad(`This model does not support specifying dimensions above ${MAX_DIMENSIONS}.`);
    }
    dimensions = b.dimensions;
  }
  const encoding = b.encoding_format ?? "float";
  if (encoding !== "float" && encoding !== "base64") {
    return bad(
      `Invalid value for 'encoding_format' = ${String(encoding)}. Supported values are: 'float' and 'base64'.`,
    );
  }
  return { model: b.model, inputs, dimensions, encoding };
}

/** The answer to `request`; `drop` leaves out that many trailing embeddings (the missing_embedding fault). */
export function renderEmbeddingsReply(request: EmbeddingsRequest, drop = 0): unknown {
  const tokens = request.inputs.reduce((n, text) => n + estimateTokens(text.length), 0);
  const inputs = request.inputs.slice(0, Math.max(0, request.inputs.length - drop));
  return {
    object: "list",
    data: inputs.map((text, index) => {
      const vector = fakeEmbedding(text, request.dimensions);
      return {
        object: "embedding",
        index,
        embedding: request.encoding === "base64" ? toBase64Float32(vector) : vector,
      };
    }),
    model: request.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

function toBase64Float32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [i, x] of vector.entries()) bytes.writeFloatLE(x, i * 4);
  return bytes.toString("base64");
}
