/**
 * The embedding side of the items, the same for every entry point: what ingest hands to the embeddings
 * queue, what the queue's consumer does with a message, the daily backfill of what was never embedded, and
 * where an item or a workspace stands. Without an embedder every one of them does nothing.
 */
import type { Embedder } from "../domain/embeddings";
import {
  EMBED_IDS_PER_SEND,
  type EmbeddingCounts,
  type EmbeddingModelRef,
  type EmbedOutcome,
  embedItems,
  embedSends,
  type OtherModelsRemoved,
  type SemanticIndexState,
  type VectorIndexState,
} from "../domain/item-embedding";
import type { UpsertOutcome } from "../domain/items";
import type { Services } from "./services";

type EmbeddingServices = Pick<Services, "embedder" | "embeddings" | "embedQueue">;

const refOf = (embedder: Embedder): EmbeddingModelRef => ({
  model: embedder.model,
  dimensions: embedder.dimensions,
});

/** The ids of the items whose content changed (created or updated), in sends for the embeddings queue. */
export async function enqueueChangedItems(
  services: EmbeddingServices,
  outcomes: UpsertOutcome[],
): Promise<number> {
  if (!services.embedder) return 0;
  const changed = outcomes.filter((o) => o.status !== "unchanged").map((o) => o.id);
  for (const send of embedSends(changed)) await services.embedQueue.send(send);
  return changed.length;
}

/**
 * Embeds the items of one queue message (embedItems: chunk, embed, write under the content hash they were
 * read with). Null without an embedder. An EmbeddingError propagates: the consumer retries the message.
 */
export async function embedQueuedItems(
  services: EmbeddingServices,
  itemIds: string[],
): Promise<EmbedOutcome | null> {
  if (!services.embedder) return null;
  return embedItems(itemIds, { embedder: services.embedder, chunks: services.embeddings });
}

/**
 * A model's first vectors bring its index: the embeddings consumer calls this once it wrote some (except a
 * backfill's bulk items, whose index waits for the backfill's last message: `now`), and each isolate tries
 * once per model (the daily upkeep builds a missing index too). A failure propagates, for the caller to
 * log: the vectors are written and stay so.
 */
export async function ensureModelIndex(services: EmbeddingServices, now = false): Promise<void> {
  const { embedder } = services;
  if (!embedder || (!now && indexedModels.has(embedder.model))) return;
  try {
    // Null when the written items went away meanwhile (the model's size is not known yet): next time.
    const key = await services.embeddings.vectorKey(refOf(embedder));
    if (!key) return;
    await services.embeddings.ensureVectorIndex(key);
    indexedModels.add(embedder.model);
  } catch (error) {
    indexedModels.add(embedder.model);
    throw error;
  }
}

/** Models whose vector index this isolate has seen to (or failed to: the daily upkeep tries again). */
const indexedModels = new Set<string>();

/**
 * The vector index's upkeep, daily: the configured model's index is built if missing, and up to
 * `removeLimit` vectors of a previous model are removed (their index with the last of them). Null without
 * an embedder.
 */
export async function maintainVectorIndex(
  services: EmbeddingServices,
  removeLimit: number,
): Promise<VectorIndexReport | null> {
  const { embedder } = services;
  if (!embedder) return null;
  const key = await services.embeddings.vectorKey(refOf(embedder));
  // Before the model's first vector its size is not known: nothing to index, nothing to tell apart.
  if (!key) return { index: null, indexCreated: false, chunks: 0, indexes: [] };
  const index = await services.embeddings.ensureVectorIndex(key);
  const removed = await services.embeddings.removeOtherModels(key, removeLimit);
  return { index: index.name, indexCreated: index.created, ...removed };
}

export interface VectorIndexReport extends OtherModelsRemoved {
  /** The configured model's index; null before its first vector (its size is not known yet). */
  index: string | null;
  indexCreated: boolean;
}

export async function semanticIndexState(
  services: EmbeddingServices,
  itemId: string,
): Promise<SemanticIndexState> {
  if (!services.embedder) return "not_configured";
  return (await services.embeddings.isIndexed(itemId, refOf(services.embedder))) ? "indexed" : "pending";
}

export interface EmbeddingStatus extends Partial<EmbeddingCounts> {
  configured: boolean;
  model: string | null;
  dimensions: number | null;
  /**
   * The model's vector index: ready, building (a backfill's items are all written and the index is being
   * built over them: until then semantic search reads the vectors exactly), or missing (none yet, or an
   * interrupted build to be replaced). Null while the model's size is not known.
   */
  vectorIndex?: "ready" | "building" | "missing" | null;
}

/** How a vector index's state reads in the status: an interrupted build is as good as none. */
const SHOWN_INDEX_STATE = {
  valid: "ready",
  building: "building",
  invalid: "missing",
  missing: "missing",
} as const satisfies Record<VectorIndexState, EmbeddingStatus["vectorIndex"]>;

/** The workspace's items, how many are indexed for the configured model and how many wait, and its index. */
export async function embeddingStatus(
  services: EmbeddingServices,
  workspaceId: string,
): Promise<EmbeddingStatus> {
  const { embedder } = services;
  if (!embedder) return { configured: false, model: null, dimensions: null };
  const ref = refOf(embedder);
  const [counts, key] = await Promise.all([
    services.embeddings.counts(workspaceId, ref),
    // A model of unknown size: its stored vectors' size, once the first is written.
    services.embeddings.vectorKey(ref),
  ]);
  const vectorIndex = key ? SHOWN_INDEX_STATE[await services.embeddings.vectorIndexState(key)] : null;
  const dimensions = ref.dimensions ?? key?.dimensions ?? null;
  return { configured: true, model: embedder.model, dimensions, ...counts, vectorIndex };
}

/** Pages (of MODEL_BACKFILL_SCAN items) one backfill step reads before handing on to the next step. */
export const MODEL_BACKFILL_PAGES_PER_STEP = 4;
const MODEL_BACKFILL_SCAN = 5000;

/** Models whose backfill this isolate has seen started (by itself or another). */
const backfillClaimed = new Set<string>();

/**
 * When a model is configured (or changed), the items lacking its vectors are queued at once, not at the
 * next daily backfill: the first caller in an isolate (the worker's first request) claims the model in
 * the database, and the one caller that claims it first sends the backfill's first step to the embeddings
 * queue (continueModelBackfill). Every later call in the isolate does nothing. Answers whether this call
 * started it. A failed send releases the claim, for the next caller.
 */
export async function startModelBackfill(services: EmbeddingServices): Promise<boolean> {
  const { embedder } = services;
  if (!embedder) return false;
  const ref = refOf(embedder);
  const name = `${ref.model} ${ref.dimensions}`;
  if (backfillClaimed.has(name)) return false;
  backfillClaimed.add(name);
  try {
    if (!(await services.embeddings.claimBackfill(ref))) return false;
  } catch (error) {
    backfillClaimed.delete(name);
    throw error;
  }
  try {
    await services.embedQueue.send([{ backfill: { model: embedder.model, after: null } }]);
    return true;
  } catch (error) {
    backfillClaimed.delete(name);
    await services.embeddings.releaseBackfill(ref).catch(() => {});
    throw error;
  }
}

/**
 * One step of a model's backfill (an EmbedBackfillMessage): up to MODEL_BACKFILL_PAGES_PER_STEP pages of
 * the items lacking the model's vectors, from `after`, sent as bulk item messages, then the next step, until
 * the last item, after which it sends the message that builds the model's index (an EmbedIndexMessage). Null
 * (nothing done) when that model is no longer the configured one.
 */
export async function continueModelBackfill(
  services: EmbeddingServices,
  step: { model: string; after: string | null },
): Promise<BackfillReport | null> {
  const { embedder } = services;
  if (!embedder || embedder.model !== step.model) return null;
  const pageTrips = 1 + Math.ceil(MODEL_BACKFILL_SCAN / EMBED_IDS_PER_SEND);
  const report = await backfillEmbeddings(services, {
    after: step.after,
    scan: MODEL_BACKFILL_SCAN,
    maxRoundTrips: MODEL_BACKFILL_PAGES_PER_STEP * pageTrips,
    bulk: true,
  });
  if (report && !report.complete) {
    await services.embedQueue.send([{ backfill: { model: step.model, after: report.resumeAfter } }]);
  } else if (report) {
    await services.embedQueue.send([{ index: { model: step.model } }]);
  }
  return report;
}

export interface BackfillReport {
  pages: number;
  enqueued: number;
  sends: number;
  /** Where the next backfill resumes; null when this one reached the end. */
  resumeAfter: string | null;
  complete: boolean;
}

/**
 * The daily backfill: pages (by item id, `scan` items a page) through the items lacking embeddings of the
 * configured model for their current content (never embedded, changed while the queue was down, or made
 * by another model) and hands them to the embeddings queue. At most `maxRoundTrips` pages and sends; where
 * it stops, the next one resumes (`after`).
 */
export async function backfillEmbeddings(
  services: EmbeddingServices,
  options: { after: string | null; scan: number; maxRoundTrips: number; bulk?: boolean },
): Promise<BackfillReport | null> {
  const { embedder } = services;
  if (!embedder) return null;
  const report: BackfillReport = {
    pages: 0,
    enqueued: 0,
    sends: 0,
    resumeAfter: options.after,
    complete: false,
  };
  let after = options.after;
  let roundTrips = 0;
  const scan = Math.max(1, options.scan);
  // A page's read, and the sends its ids can need at most (EMBED_IDS_PER_SEND ids a send).
  const pageTrips = 1 + Math.ceil(scan / EMBED_IDS_PER_SEND);
  while (roundTrips + pageTrips <= options.maxRoundTrips) {
    const page = await services.embeddings.missing(refOf(embedder), { after, scan });
    roundTrips++;
    report.pages++;
    for (const send of embedSends(page.itemIds, { bulk: options.bulk })) {
      await services.embedQueue.send(send);
      roundTrips++;
      report.sends++;
    }
    report.enqueued += page.itemIds.length;
    after = page.nextAfter;
    if (after === null) {
      report.complete = true;
      break;
    }
  }
  report.resumeAfter = after;
  return report;
}
