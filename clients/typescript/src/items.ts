/** The workspace store: upsert in batches, search, read and delete, all as the token's user. */
import {
  batchBody,
  type EncodedItem,
  encodeItems,
  MAX_BATCH_BYTES,
  MAX_BATCH_ITEMS,
  planBatches,
} from "./batches.js";
import { UnifiedMemoryError } from "./errors.js";
import { request } from "./operations.js";
import { Paginator } from "./pages.js";
import type { Transport } from "./transport.js";
import type {
  IngestedItem,
  Item,
  ItemInput,
  ItemKind,
  SearchHit,
  SearchPage,
  UpsertStatus,
} from "./types.js";

/** One problem of a refused item, as the API's 422 names it. */
export interface ItemProblem {
  path: string;
  message: string;
}

export type UpsertItemResult =
  | { index: number; ok: true; id: string; source: string; externalId: string; status: UpsertStatus }
  | {
      index: number;
      ok: false;
      source: string;
      externalId: string;
      error: UnifiedMemoryError;
      /** What the API found wrong with this item (422), else empty. */
      problems: ItemProblem[];
    };

export interface UpsertResult {
  /** One per item, in the order given (`index` is the position in that list). */
  items: UpsertItemResult[];
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  /** POST /items requests that got an answer (retries of one request not counted). */
  requests: number;
}

export interface UpsertOptions {
  /** Items per request (default and API limit: 500). */
  maxBatchItems?: number;
  /** Bytes of JSON per request (default and API limit: 5 MB). */
  maxBatchBytes?: number;
  /** Requests in flight at once (default 1). */
  concurrency?: number;
  /** Called with each request's results as it completes (progress; results so far if a later one throws). */
  onBatch?: (results: UpsertItemResult[]) => void;
  signal?: AbortSignal;
}

export interface SearchOptions {
  /** What to look for; ranked when present, newest first without it. */
  q?: string;
  /**
   * hybrid (words and meaning, fused; the server's default with an embedding model), keyword (the default
   * without one) or semantic (meaning only).
   */
  mode?: "hybrid" | "keyword" | "semantic";
  kind?: ItemKind | readonly ItemKind[];
  /** Occurred at or after (inclusive). */
  since?: string | Date;
  /** Occurred before (exclusive). */
  until?: string | Date;
  /** Author or participant names. */
  people?: string | readonly string[];
  /** Hits per page (default 20, at most 100). */
  limit?: number;
  signal?: AbortSignal;
}

/** Rounds of "drop the items a 422 named, send the rest" per batch (sharing is checked after the schema). */
const MAX_VALIDATION_ROUNDS = 3;

const list = <T extends string>(value: T | readonly T[] | undefined) =>
  value === undefined ? undefined : typeof value === "string" ? [value] : (value as readonly T[]);
const instant = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value);

export class ItemsApi {
  constructor(private readonly transport: Transport) {}

  /**
   * Creates or updates items (idempotent by source and externalId), split into requests within the API's
   * limits. A 413 splits a request in two; a 422 marks the items it names as failed and sends the rest
   * again; 429/502/503/504 are retried (Retry-After). Other refusals fail that request's items. Thrown:
   * 401/403 (the token), and no answer after the retries (network_error, timeout). A retry after a 503 or
   * a timeout may follow an attempt the server stored anyway: its new items then count as unchanged.
   */
  async upsert(items: readonly ItemInput[], options: UpsertOptions = {}): Promise<UpsertResult> {
    const encoded = encodeItems(items);
    const { batches, oversized } = planBatches(encoded, {
      maxItems: options.maxBatchItems ?? MAX_BATCH_ITEMS,
      maxBytes: options.maxBatchBytes ?? MAX_BATCH_BYTES,
    });
    const maxBytes = options.maxBatchBytes ?? MAX_BATCH_BYTES;
    const results: UpsertItemResult[] = oversized.map((entry) =>
      failed(
        items,
        entry,
        new UnifiedMemoryError({
          code: "payload_too_large",
          message: `The item is ${entry.bytes} bytes as JSON; one request carries at most ${maxBytes}`,
          status: 413,
        }),
      ),
    );
    let requests = 0;
    const send = async (batch: EncodedItem[], round: number): Promise<UpsertItemResult[]> => {
      try {
        const body = await this.transport.json<{ items: IngestedItem[] }>(
          request("ingestItems", {
            bodyText: batchBody(batch),
            ...(options.signal ? { signal: options.signal } : {}),
          }),
        );
        requests++;
        if (body.items?.length !== batch.length) {
          throw new UnifiedMemoryError({
            code: "invalid_response",
            message: `POST /items answered ${body.items?.length ?? "no"} results for ${batch.length} items`,
            status: 200,
          });
        }
        return batch.map((entry, i) => ({ index: entry.index, ok: true, ...body.items[i]! }));
      } catch (error) {
        if (!(error instanceof UnifiedMemoryError) || isFatal(error)) throw error;
        requests++;
        if (error.status === 413 && batch.length > 1) {
          const half = Math.ceil(batch.length / 2);
          return [...(await send(batch.slice(0, half), round)), ...(await send(batch.slice(half), round))];
        }
        const problems = error.status === 422 ? problemsByPosition(error.details, batch.length) : new Map();
        if (problems.size === 0) return batch.map((entry) => failed(items, entry, error));
        const refused = [...problems].map(([at, found]) => failed(items, batch[at]!, error, found));
        const rest = batch.filter((_, at) => !problems.has(at));
        if (rest.length === 0) return refused;
        if (round + 1 >= MAX_VALIDATION_ROUNDS)
          return [...refused, ...rest.map((e) => failed(items, e, error))];
        return [...refused, ...(await send(rest, round + 1))];
      }
    };

    const queue = [...batches];
    let fatal: unknown = null;
    const worker = async () => {
      while (queue.length > 0 && fatal === null) {
        const batch = queue.shift()!;
        try {
          const done = await send(batch, 0);
          results.push(...done);
          options.onBatch?.(done);
        } catch (error) {
          fatal ??= error;
        }
      }
    };
    const lanes = Math.max(1, Math.min(options.concurrency ?? 1, batches.length));
    await Promise.all(Array.from({ length: lanes }, worker));
    if (fatal !== null) throw fatal;

    results.sort((a, b) => a.index - b.index);
    const count = (status: UpsertStatus) => results.filter((r) => r.ok && r.status === status).length;
    return {
      items: results,
      created: count("created"),
      updated: count("updated"),
      unchanged: count("unchanged"),
      failed: results.filter((r) => !r.ok).length,
      requests,
    };
  }

  /** Search what the caller may see, across pages: `for await (const hit of items.search({ q }))`. */
  search(options: SearchOptions = {}): Paginator<SearchHit, SearchPage> {
    const query = {
      q: options.q,
      mode: options.mode,
      kind: list(options.kind),
      since: instant(options.since),
      until: instant(options.until),
      people: list(options.people),
      limit: options.limit,
    };
    return new Paginator<SearchHit, SearchPage>(
      (cursor) =>
        this.transport.json<SearchPage>(
          request("searchItems", {
            query: { ...query, cursor },
            ...(options.signal ? { signal: options.signal } : {}),
          }),
        ),
      (page) => ({ entries: page.items, nextCursor: page.nextCursor }),
    );
  }

  /** One item with its links both ways (404 not_found for an item the caller cannot see). */
  get(id: string, options: { signal?: AbortSignal } = {}): Promise<Item> {
    return this.transport.json(request("getItem", { params: { id }, ...options }));
  }

  /** The owner deletes the item; a direct sharee leaves it. Memories citing it are redacted at once. */
  async delete(id: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.transport.send(request("deleteItem", { params: { id }, ...options }));
  }
}

/** Refusals that no other batch would escape: the token, or no server at all. */
const isFatal = (error: UnifiedMemoryError) =>
  error.status === 401 || error.status === 403 || error.status === 0;

function failed(
  items: readonly ItemInput[],
  entry: EncodedItem,
  error: UnifiedMemoryError,
  problems: ItemProblem[] = [],
): UpsertItemResult {
  const item = items[entry.index]!;
  return { index: entry.index, ok: false, source: item.source, externalId: item.externalId, error, problems };
}

/** The 422's details.items, by position in the batch. */
function problemsByPosition(details: unknown, size: number): Map<number, ItemProblem[]> {
  const out = new Map<number, ItemProblem[]>();
  const listed = (details as { items?: unknown } | null)?.items;
  if (!Array.isArray(listed)) return out;
  for (const p of listed as { index?: unknown; path?: unknown; message?: unknown }[]) {
    if (typeof p.index !== "number" || p.index < 0 || p.index >= size) continue;
    const problem = { path: String(p.path ?? ""), message: String(p.message ?? "") };
    out.set(p.index, [...(out.get(p.index) ?? []), problem]);
  }
  return out;
}
