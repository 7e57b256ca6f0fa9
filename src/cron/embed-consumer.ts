/**
 * The embeddings queue's consumer: each message names up to EMBED_MAX_ITEMS items whose content changed;
 * they are chunked, embedded and written (app/embeddings.ts embedQueuedItems: one read, the embedder's
 * batches, one write statement), each only if the item still has the content it was read with, so an
 * update or delete racing the consumer wins. A batch's messages are handled a few at a time. A message is acked
 * when its items were written or skipped; a provider error (rate limit, outage, timeout) or a database
 * error retries it through the queue after a growing delay (the provider's Retry-After when longer), up to
 * the queue's max_retries, then the dead-letter queue: never a retry loop here. A request the provider
 * refuses as malformed, or a malformed message, is logged and acked: retrying cannot fix it. After a batch
 * that wrote vectors, the model's HNSW index is built if this isolate has not seen to it yet; a failure
 * there is logged and changes nothing of the batch (the daily upkeep builds a missing index). A backfill
 * step (a model was just configured: app/embeddings.ts startModelBackfill) pages through the items lacking
 * the model's vectors and sends them as bulk messages, then its next step; its last step sends the index
 * message. Bulk items leave the index alone: the index message builds it once over all of them (an HNSW
 * index built over its vectors costs about a sixth of inserting them into it one by one).
 */
import { z } from "zod";
import { continueModelBackfill, embedQueuedItems, ensureModelIndex } from "../app/embeddings";
import type { Services } from "../app/services";
import { EmbeddingError } from "../domain/embeddings";
import { EMBED_MAX_ITEMS } from "../domain/item-embedding";
import { isUuid } from "../domain/memory";
import { logLine } from "../log";

const RETRY_BASE_SECONDS = 30;
/** Messages of a batch handled at once (each up to EMBED_MAX_ITEMS items). */
const EMBED_MESSAGE_CONCURRENCY = 4;
/** Cloudflare Queues delay a retry by at most 12 hours. */
const RETRY_MAX_SECONDS = 12 * 3600;

/**
 * What a batch does about the model's index, least first; a message can only raise it: nothing written,
 * a backfill's bulk items written (the index waits), other items written (built once per isolate), or the
 * backfill's index message (built now).
 */
const INDEX_NEEDS = ["none", "deferred", "checked", "built"] as const;

function needIndex(report: EmbedBatchReport, need: EmbedBatchReport["index"]): void {
  if (INDEX_NEEDS.indexOf(need) > INDEX_NEEDS.indexOf(report.index)) report.index = need;
}

const embedMessage = z.union([
  z.object({
    itemIds: z.array(z.string().refine(isUuid, "not an item id")).min(1).max(EMBED_MAX_ITEMS),
    bulk: z.literal(true).optional(),
  }),
  z.object({ index: z.object({ model: z.string().min(1).max(500) }) }),
  z.object({
    backfill: z.object({
      model: z.string().min(1).max(500),
      after: z.string().refine(isUuid, "not an item id").nullable(),
    }),
  }),
]);

export interface EmbedBatchReport {
  messages: number;
  written: number;
  skipped: number;
  missing: number;
  /** Items a backfill step handed to the queue. */
  enqueued: number;
  /** What the batch does about the model's index (INDEX_NEEDS): after items that were not a backfill's, or when told to. */
  index: (typeof INDEX_NEEDS)[number];
  retried: number;
  dropped: number;
  malformed: number;
}

export async function consumeEmbedBatch(
  batch: MessageBatch<unknown>,
  services: Pick<Services, "embedder" | "embeddings" | "embedQueue" | "errors">,
): Promise<EmbedBatchReport> {
  const report: EmbedBatchReport = {
    messages: 0,
    written: 0,
    skipped: 0,
    missing: 0,
    enqueued: 0,
    index: "none",
    retried: 0,
    dropped: 0,
    malformed: 0,
  };
  // Messages in parallel, a few at a time: each is a load, its embedding requests and one write, so the
  // consumer's time is round trips, not CPU.
  const messages = [...batch.messages];
  const next = async (): Promise<void> => {
    for (let message = messages.shift(); message; message = messages.shift()) {
      await consumeMessage(batch.queue, message, services, report);
    }
  };
  await Promise.all(Array.from({ length: Math.min(EMBED_MESSAGE_CONCURRENCY, messages.length) }, next));
  if (report.index === "checked" || report.index === "built") {
    // The model's index, once per isolate unless told; a failure leaves the vectors and the acks as they are.
    await ensureModelIndex(services, report.index === "built").catch((error) =>
      logLine("warn", "vector_index_build_failed", {
        queue: batch.queue,
        ...services.errors.logFields(error),
      }),
    );
  }
  logLine("info", "embed_batch", { queue: batch.queue, ...report });
  return report;
}

async function consumeMessage(
  queue: string,
  message: Message<unknown>,
  services: Pick<Services, "embedder" | "embeddings" | "embedQueue" | "errors">,
  report: EmbedBatchReport,
): Promise<void> {
  report.messages++;
  const parsed = embedMessage.safeParse(message.body);
  if (!parsed.success) {
    report.malformed++;
    logLine("warn", "embed_message_malformed", { queue, messageId: message.id });
    message.ack();
    return;
  }
  try {
    if ("index" in parsed.data) {
      if (services.embedder?.model === parsed.data.index.model) needIndex(report, "built");
      else report.dropped++;
      message.ack();
      return;
    }
    if ("backfill" in parsed.data) {
      const step = await continueModelBackfill(services, parsed.data.backfill);
      if (step) report.enqueued += step.enqueued;
      else report.dropped++;
      message.ack();
      return;
    }
    const outcome = await embedQueuedItems(services, parsed.data.itemIds);
    if (!outcome) {
      // No embedder (any more): nothing to do; the backfill covers these items once one is configured.
      report.dropped++;
      message.ack();
      return;
    }
    report.written += outcome.written.length;
    if (outcome.written.length > 0) needIndex(report, parsed.data.bulk ? "deferred" : "checked");
    report.skipped += outcome.skipped.length;
    report.missing += outcome.missing.length;
    message.ack();
  } catch (error) {
    const permanent = error instanceof EmbeddingError && error.code === "embedding_bad_request";
    const fields = {
      queue,
      messageId: message.id,
      attempts: message.attempts,
      ...(error instanceof EmbeddingError ? { code: error.code } : services.errors.logFields(error)),
    };
    if (permanent) {
      report.dropped++;
      logLine("warn", "embed_message_dropped", fields);
      message.ack();
      return;
    }
    report.retried++;
    const backoff = RETRY_BASE_SECONDS * 2 ** Math.min(message.attempts - 1, 8);
    const providerWait = error instanceof EmbeddingError ? (error.retryAfterSeconds ?? 0) : 0;
    const delaySeconds = Math.min(RETRY_MAX_SECONDS, Math.max(backoff, Math.ceil(providerWait)));
    logLine("warn", "embed_message_retried", { ...fields, delaySeconds });
    message.retry({ delaySeconds });
  }
}
