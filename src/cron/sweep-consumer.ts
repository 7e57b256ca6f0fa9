/**
 * The sweep queue's consumer: each message names subjects the sweep could not dispatch itself; each is
 * handed to its MemoryAgent with the same spread start the sweep would have given it. A message is acked
 * when every subject was handed over, retried (with growing delay, up to the queue's max_retries, then
 * the dead-letter queue) when any failed: agents take a repeated request as the same request. A malformed
 * message is logged and acked: retrying cannot make it valid.
 */
import { z } from "zod";
import { MAX_SUBJECT_KEY_LENGTH } from "../domain/memory";
import { logLine } from "../log";
import type { MemoryAgents } from "../memory/memory-agents-port";
import { dispatchToAgents } from "../memory/sweep-fanout";

/** Agent calls per message at most; with max_batch_size 2 a batch stays under 1,000 subrequests. */
export const MAX_IDS_PER_MESSAGE = 450;
const DISPATCH_CONCURRENCY = 20;
const RETRY_BASE_SECONDS = 30;

const sweepMessage = z.object({
  subjectKeys: z.array(z.string().min(1).max(MAX_SUBJECT_KEY_LENGTH)).min(1).max(MAX_IDS_PER_MESSAGE),
  sweptAt: z.number().int().nonnegative(),
  spreadMs: z
    .number()
    .int()
    .min(0)
    .max(24 * 3600_000),
});

export interface SweepBatchReport {
  messages: number;
  dispatched: number;
  failed: number;
  retried: number;
  malformed: number;
}

export async function consumeSweepBatch(
  batch: MessageBatch<unknown>,
  agents: Pick<MemoryAgents, "requestRefresh">,
): Promise<SweepBatchReport> {
  const report: SweepBatchReport = { messages: 0, dispatched: 0, failed: 0, retried: 0, malformed: 0 };
  for (const message of batch.messages) {
    report.messages++;
    const parsed = sweepMessage.safeParse(message.body);
    if (!parsed.success) {
      report.malformed++;
      logLine("warn", "sweep_message_malformed", {
        queue: batch.queue,
        messageId: message.id,
        issues: parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`),
      });
      message.ack();
      continue;
    }
    const { subjectKeys, sweptAt, spreadMs } = parsed.data;
    const { dispatched, failed } = await dispatchToAgents(
      agents,
      subjectKeys,
      { sweptAt, spreadMs },
      DISPATCH_CONCURRENCY,
    );
    report.dispatched += dispatched;
    report.failed += failed.length;
    if (failed.length === 0) {
      message.ack();
      continue;
    }
    report.retried++;
    message.retry({ delaySeconds: RETRY_BASE_SECONDS * 2 ** Math.min(message.attempts - 1, 5) });
  }
  logLine("info", "sweep_batch", { queue: batch.queue, ...report });
  return report;
}
