/**
 * The cron's share of the webhooks: every few minutes (and after the daily sweep) it hands the outbox's due
 * events to the queue, so an event whose hand-over the queue refused is sent once the queue takes it again.
 * A bounded number of flushes an invocation; one log line when anything was due.
 */
import type { Services } from "../app/services";
import type { OutboxFlushReport } from "../domain/webhook-events";
import { logLine } from "../log";
import { OUTBOX_FLUSH_LIMIT } from "../queues/webhook-queue";

/** wrangler.toml's second cron: the outbox only. */
export const WEBHOOK_OUTBOX_CRON = "*/5 * * * *";
/** Flushes an invocation: up to 20 × OUTBOX_FLUSH_LIMIT events, 3 round trips and one queue call each. */
const MAX_FLUSHES = 20;

export async function flushWebhookOutbox(services: Pick<Services, "webhookEvents" | "errors">) {
  const total: OutboxFlushReport = { sent: 0, deferred: 0, givenUp: 0 };
  try {
    for (let i = 0; i < MAX_FLUSHES; i++) {
      const report = await services.webhookEvents.flush();
      total.sent += report.sent;
      total.deferred += report.deferred;
      total.givenUp += report.givenUp;
      // A short or refused hand-over: nothing more is due now.
      if (report.sent < OUTBOX_FLUSH_LIMIT) break;
    }
  } catch (error) {
    logLine("warn", "webhook_outbox_flush_failed", { ...total, ...services.errors.logFields(error) });
    return total;
  }
  if (total.sent + total.deferred + total.givenUp > 0) logLine("info", "webhook_outbox", { ...total });
  return total;
}
