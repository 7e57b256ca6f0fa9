/**
 * The webhooks queue over a Cloudflare Queue binding. Entry points and runs hand it events (one message
 * each, off the response path); its consumer (cron/webhook-consumer.ts) turns each into deliveries, which
 * travel the same queue. Without the binding, webhooks are off and events are dropped.
 */
import type { WebhookEvents, WebhookPayload } from "../domain/webhook-events";

export type WebhookMessage =
  | { kind: "event"; eventId: string; payload: WebhookPayload }
  | { kind: "delivery"; deliveryId: string };

export function createWebhookEvents(queue: Queue<WebhookMessage> | undefined): WebhookEvents {
  return {
    async emit(payload) {
      if (!queue) return;
      await queue.send({ kind: "event", eventId: crypto.randomUUID(), payload }, { contentType: "json" });
    },
  };
}
