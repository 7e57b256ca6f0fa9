/**
 * The embeddings queue's consumer: each message names up to EMBED_MAX_ITEMS items whose content changed;
 * they are chunked, embedded and written (app/embeddings.ts embedQueuedItems), each only if the item still
 * has the content it was read with, so an update or delete racing the consumer wins. A message is acked
 * when its items were written or skipped; a provider error (rate limit, outage, timeout) or a database
 * error retries it through the queue after a growing delay (the provider's Retry-After when longer), up to
 * the queue's max_retries, then the dead-letter queue: never a retry loop here. A request the provider
 * refuses as malformed, or a malformed message, is logged and acked: retrying cannot fix it. After a batch
 * that wrote vectors, the model's HNSW index is built if this isolate has not seen to it yet; a failure
 * there is logged and changes nothing of the batch (the daily upkeep builds a missing index).
 */
import { z } from "zod";
import { embedQueuedItems, ensureModelIndex } from "../app/embeddings";
import type { Services } from "../app/services";
import { EmbeddingError } from "../domain/embeddings";
import { EMBED_MAX_ITEMS } from "../domain/item-embedding";
import { isUuid } from "../domain/memory";

const RETRY_BASE_SECONDS = 30;
/** Cloudflare Queues delay a retry by at most 12 hours. */
const RETRY_MAX_SECONDS = 12 * 3600;

const embedMessage = z.object({
  itemIds: z.array(z.string().refine(isUuid, "not an item id")).min(1).max(EMBED_MAX_ITEMS),
});

export interface EmbedBatchReport {
  messages: number;
  written: number;
  skipped: number;
  missing: number;
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
    retried: 0,
    dropped: 0,
    malformed: 0,
  };
  for (const message of batch.messages) {
    report.messages++;
    const parsed = embedMessage.safeParse(message.body);
    if (!parsed.success) {
      report.malformed++;
      log("warn", "embed_message_malformed", { queue: batch.queue, messageId: message.id });
      message.ack();
      continue;
    }
    try {
      const outcome = await embedQueuedItems(services, parsed.data.itemIds);
      if (!outcome) {
        // No embedder (any more): nothing to do; the backfill covers these items once one is configured.
        report.dropped++;
        message.ack();
        continue;
      }
      report.written += outcome.written.length;
      report.skipped += outcome.skipped.length;
      report.missing += outcome.missing.length;
      message.ack();
    } catch (error) {
      const permanent = error instanceof EmbeddingError && error.code === "embedding_bad_request";
      const fields = {
        queue: batch.queue,
        messageId: message.id,
        attempts: message.attempts,
        ...(error instanceof EmbeddingError ? { code: error.code } : services.errors.logFields(error)),
      };
      if (permanent) {
        report.dropped++;
        log("warn", "embed_message_dropped", fields);
        message.ack();
        continue;
      }
      report.retried++;
      const backoff = RETRY_BASE_SECONDS * 2 ** Math.min(message.attempts - 1, 8);
      const providerWait = error instanceof EmbeddingError ? (error.retryAfterSeconds ?? 0) : 0;
      const delaySeconds = Math.min(RETRY_MAX_SECONDS, Math.max(backoff, Math.ceil(providerWait)));
      log("warn", "embed_message_retried", { ...fields, delaySeconds });
      message.retry({ delaySeconds });
    }
  }
  if (report.written > 0) {
    // The model's index, once per isolate; a failure leaves the written vectors and the acks as they are.
    await ensureModelIndex(services).catch((error) =>
      log("warn", "vector_index_build_failed", { queue: batch.queue, ...services.errors.logFields(error) }),
    );
  }
  log("info", "embed_batch", { queue: batch.queue, ...report });
  return report;
}

function log(level: "info" | "warn", msg: string, fields: Record<string, unknown>): void {
  console.log(JSON.stringify({ level, msg, ...fields }));
}
