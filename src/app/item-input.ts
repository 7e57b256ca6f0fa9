/**
 * What a caller sends to the item operations, validated the same way on every entry point: a batch of items
 * (every problem listed as { index, path, message }) and a search query.
 */
import { z } from "zod";
import { AppError } from "../domain/errors";
import {
  type ItemInput,
  isoDateTime,
  itemInputSchema,
  itemKindSchema,
  MAX_ITEMS_PER_REQUEST,
  safeString,
  storableInstant,
} from "../domain/item-schema";
import { type ItemProblem, repeatedKeys, SEARCH_MODES } from "../domain/items";
import { PAGE_LIMIT } from "../domain/pages";

/** Distinct users one request may share with: every one of them gets a refresh trigger. */
export const MAX_SHARE_TARGETS_PER_REQUEST = 1000;

/**
 * Validates a batch of items: too many is 413; any bad item makes the whole batch 422 with every problem
 * listed, including a (source, externalId) repeated inside the batch.
 */
export function parseItemBatch(raw: unknown[]): ItemInput[] {
  if (raw.length > MAX_ITEMS_PER_REQUEST) {
    throw new AppError("payload_too_large", `At most ${MAX_ITEMS_PER_REQUEST} items per request`);
  }
  const problems: ItemProblem[] = [];
  const parsed: (ItemInput & { index: number })[] = [];
  raw.forEach((entry, index) => {
    const result = itemInputSchema.safeParse(entry);
    if (result.success) parsed.push({ ...result.data, index });
    else {
      for (const issue of result.error.issues) {
        problems.push({ index, path: issue.path.join(".") || "(item)", message: issue.message });
      }
    }
  });
  problems.push(...repeatedKeys(parsed), ...tooManyShareTargets(parsed));
  problems.sort((a, b) => a.index - b.index);
  if (problems.length > 0) {
    const count = new Set(problems.map((p) => p.index)).size;
    throw new AppError("validation_failed", `${count} item(s) are invalid`, { details: { items: problems } });
  }
  return parsed.map(({ index: _index, ...item }) => item);
}

/** The first item past which the request shares with more than MAX_SHARE_TARGETS_PER_REQUEST users. */
function tooManyShareTargets(items: (ItemInput & { index: number })[]): ItemProblem[] {
  const targets = new Set<string>();
  for (const { index, sharedWith } of items) {
    for (const target of sharedWith ?? []) targets.add(target);
    if (targets.size > MAX_SHARE_TARGETS_PER_REQUEST) {
      const message = `the request shares with more than ${MAX_SHARE_TARGETS_PER_REQUEST} distinct users; send it in smaller requests`;
      return [{ index, path: "sharedWith", message }];
    }
  }
  return [];
}

const dateParam = storableInstant(z.union([isoDateTime, z.iso.date()]));

export const searchSchema = z.object({
  q: safeString().max(500, "must be at most 500 characters").optional(),
  mode: z.enum(SEARCH_MODES, `must be one of ${SEARCH_MODES.join(", ")}`).optional(),
  kinds: z.array(itemKindSchema).max(20),
  since: dateParam.optional(),
  until: dateParam.optional(),
  people: z.array(safeString().max(200)).max(20),
  person: z.array(safeString().max(100)).max(20),
  limit: z.coerce.number().int("must be an integer").min(1).max(PAGE_LIMIT.max).default(PAGE_LIMIT.default),
  cursor: safeString().max(500).optional(),
});
