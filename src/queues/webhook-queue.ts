/**
 * The webhooks queue over a Cloudflare Queue binding, fed from the outbox. An event is recorded in the outbox
 * (by the change itself, in its own transaction, or by `emit` right after it), then handed to the queue; its
 * consumer (cron/webhook-consumer.ts) turns each into deliveries, which travel the same queue. A refused
 * hand-over leaves the event in the outbox, due again after a growing delay; the next `flush` (after a later
 * change, or the cron every few minutes) sends it. Without the binding, webhooks are off: `emit` records nothing,
 * and what a change recorded in its own transaction waits in the outbox for a worker that has the binding.
 */
import type { Clock } from "../domain/clock";
import { outboxRetryDelaySeconds, WEBHOOK_CLAIM_MS } from "../domain/webhook-delivery";
import type { OutboxFlushReport, WebhookEvents, WebhookPayload } from "../domain/webhook-events";
import type { WebhookOutbox } from "../domain/webhooks";
import { logLine } from "../log";

export type WebhookMessage =
  | { kind: "event"; eventId: string; payload: WebhookPayload }
  | { kind: "delivery"; deliveryId: string };

/** Events handed over per flush: one sendBatch (Cloudflare takes at most 100 messages and 256 KB a call). */
export const OUTBOX_FLUSH_LIMIT = 50;

export interface WebhookEventsDeps {
  queue: { sendBatch(messages: Iterable<MessageSendRequest<WebhookMessage>>): Promise<unknown> } | undefined;
  outbox: WebhookOutbox;
  clock: Clock;
  /** What may be logged about an error (the error model's logFields). */
  logFields(error: unknown): Record<string, unknown>;
}

export function createWebhookEvents(deps: WebhookEventsDeps): WebhookEvents {
  const nothing: OutboxFlushReport = { sent: 0, deferred: 0, givenUp: 0 };

  async function flush(): Promise<OutboxFlushReport> {
    const { queue, outbox, clock } = deps;
    if (!queue) return nothing;
    const at = clock.now();
    const due = await outbox.claim(at, OUTBOX_FLUSH_LIMIT, new Date(at.getTime() + WEBHOOK_CLAIM_MS));
    if (due.length === 0) return nothing;
    try {
      await queue.sendBatch(
        due.map((e) => ({ body: { kind: "event", eventId: e.id, payload: e.payload }, contentType: "json" })),
      );
    } catch (error) {
      const retries = due.map((e) => {
        const delay = outboxRetryDelaySeconds(e.attempts);
        return { id: e.id, retryAt: delay === null ? null : new Date(at.getTime() + delay * 1000) };
      });
      // The queue's own words: the events carry ids and counts only, so its error cannot quote a user's text.
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      await outbox.refused(retries, `the queue refused the events (${reason})`);
      const givenUp = retries.filter((r) => r.retryAt === null).length;
      const report = { sent: 0, deferred: retries.length - givenUp, givenUp };
      logLine(givenUp > 0 ? "error" : "warn", "webhook_outbox_refused", {
        ...report,
        ...deps.logFields(error),
      });
      return report;
    }
    await outbox.sent(due.map((e) => e.id));
    return { ...nothing, sent: due.length };
  }

  return {
    async emit(payload) {
      if (!deps.queue) return;
      await deps.outbox.record([{ id: crypto.randomUUID(), payload }], deps.clock.now());
      await flush();
    },
    flush,
  };
}
