/** Splits items into POST /items requests within the API's limits (generated from its contract: 500 items, 5 MB of JSON). */

export { MAX_BATCH_BYTES, MAX_BATCH_ITEMS } from "./generated/operations.js";

/** `{"items":[` and `]}` around the items. */
const ENVELOPE_BYTES = 12;

const encoder = new TextEncoder();

export interface EncodedItem {
  /** Position in the caller's list. */
  index: number;
  json: string;
  /** UTF-8 bytes of `json`. */
  bytes: number;
}

export interface BatchLimits {
  maxItems: number;
  maxBytes: number;
}

export function encodeItems(items: readonly unknown[]): EncodedItem[] {
  return items.map((item, index) => {
    const json = JSON.stringify(item);
    return { index, json, bytes: encoder.encode(json).length };
  });
}

/** The request body of one batch. */
export const batchBody = (batch: readonly EncodedItem[]) =>
  `{"items":[${batch.map((e) => e.json).join(",")}]}`;

/** Bytes of batchBody(batch), without building it. */
export const batchBytes = (batch: readonly EncodedItem[]) =>
  ENVELOPE_BYTES + batch.reduce((sum, e) => sum + e.bytes, 0) + Math.max(0, batch.length - 1);

/**
 * Consecutive batches in the caller's order, each within both limits; an item too large to travel alone
 * is left out of every batch and returned in `oversized`.
 */
export function planBatches(
  items: readonly EncodedItem[],
  limits: BatchLimits,
): { batches: EncodedItem[][]; oversized: EncodedItem[] } {
  const batches: EncodedItem[][] = [];
  const oversized: EncodedItem[] = [];
  let current: EncodedItem[] = [];
  let bytes = ENVELOPE_BYTES;
  for (const entry of items) {
    if (ENVELOPE_BYTES + entry.bytes > limits.maxBytes) {
      oversized.push(entry);
      continue;
    }
    const added = entry.bytes + (current.length > 0 ? 1 : 0);
    if (current.length >= limits.maxItems || bytes + added > limits.maxBytes) {
      batches.push(current);
      current = [];
      bytes = ENVELOPE_BYTES;
    }
    bytes += entry.bytes + (current.length > 0 ? 1 : 0);
    current.push(entry);
  }
  if (current.length > 0) batches.push(current);
  return { batches, oversized };
}
