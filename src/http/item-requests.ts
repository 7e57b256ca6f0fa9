/** POST /items's body: the envelope `{ items: [...] }`, each item validated by the batch's checks. */
import { parseItemBatch } from "../app/item-input";
import { AppError } from "../domain/errors";
import type { ItemInput } from "../domain/item-schema";

/** `{ items: [...] }`, each item validated (400 for another shape; 413 / 422 from the batch's checks). */
export function parseIngestBody(body: unknown): ItemInput[] {
  if (typeof body !== "object" || body === null || !Array.isArray((body as { items?: unknown }).items)) {
    throw new AppError("bad_request", 'The body must be a JSON object { "items": [ ... ] }');
  }
  return parseItemBatch((body as { items: unknown[] }).items);
}
