/**
 * The webhooks queue's consumer. An event message becomes one delivery per subscribed endpoint of its
 * workspace (rows created once, then one delivery message each); a delivery message is one signed POST:
 * 10 s to answer, no redirect followed, at most 1 KB of the answer kept. A failed delivery is retried
 * through the queue on the schedule of domain/webhook-delivery.ts (about a day) and then marked dead; an
 * endpoint that failed every delivery for a day is disabled with the reason. Each attempt first claims its
 * delivery, so a redelivered or duplicated message sends nothing twice and nothing before it is due. A message
 * the consumer cannot handle at all (the database down) is retried by the queue and ends in its dead-letter
 * queue, whose consumer counts and logs it as lost.
 */
import { z } from "zod";
import type { Clock } from "../domain/clock";
import {
  keptResponseBody,
  WEBHOOK_CLAIM_MS,
  WEBHOOK_RESPONSE_BYTES_KEPT,
  WEBHOOK_TIMEOUT_MS,
  webhookDelivered,
  webhookRetryDelaySeconds,
  webhookShouldDisable,
} from "../domain/webhook-delivery";
import { WEBHOOK_EVENT_TYPES, type WebhookPayload } from "../domain/webhook-events";
import { webhookHeaders } from "../domain/webhook-signature";
import { webhookUrlProblem } from "../domain/webhook-url";
import type { PendingDelivery, WebhookStore } from "../domain/webhooks";
import { logLine } from "../log";
import type { WebhookMessage } from "../queues/webhook-queue";

/** A message that failed for a reason of ours (not the receiver's) is retried after this many seconds. */
const RETRY_OWN_FAILURE_SECONDS = 30;

const webhookMessage = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("event"),
    eventId: z.uuid(),
    payload: z.object({
      type: z.enum(WEBHOOK_EVENT_TYPES),
      timestamp: z.iso.datetime({ offset: true }),
      workspaceId: z.string().min(1).max(400),
      data: z.record(z.string(), z.unknown()),
    }),
  }),
  z.object({ kind: z.literal("delivery"), deliveryId: z.string().regex(/^msg_[0-9a-f]{32}$/) }),
]);

export interface WebhookConsumerDeps {
  store: WebhookStore;
  /** Where the planned deliveries go: the same queue. */
  queue: { sendBatch(messages: Iterable<MessageSendRequest<WebhookMessage>>): Promise<unknown> };
  clock: Clock;
  allowLocal: boolean;
  /** What may be logged about an error (the error model's logFields). */
  logFields(error: unknown): Record<string, unknown>;
}

export interface WebhookBatchReport {
  planned: number;
  delivered: number;
  retried: number;
  dead: number;
  malformed: number;
}

export async function consumeWebhookBatch(
  batch: MessageBatch<unknown>,
  deps: WebhookConsumerDeps,
): Promise<WebhookBatchReport> {
  const report: WebhookBatchReport = { planned: 0, delivered: 0, retried: 0, dead: 0, malformed: 0 };
  for (const message of batch.messages) {
    const parsed = webhookMessage.safeParse(message.body);
    if (!parsed.success) {
      report.malformed++;
      logLine("error", "webhook_message_malformed", { queue: batch.queue, messageId: message.id });
      message.ack();
      continue;
    }
    try {
      if (parsed.data.kind === "event") {
        const payload = parsed.data.payload as WebhookPayload;
        const ids = await deps.store.planDeliveries(parsed.data.eventId, payload, deps.clock.now());
        if (ids.length > 0) {
          await deps.queue.sendBatch(ids.map((deliveryId) => ({ body: { kind: "delivery", deliveryId } })));
        }
        report.planned += ids.length;
        message.ack();
      } else {
        const outcome = await deliver(parsed.data.deliveryId, deps);
        if (outcome.kind === "retry") {
          report.retried++;
          message.retry({ delaySeconds: outcome.delaySeconds });
        } else {
          if (outcome.kind === "delivered") report.delivered++;
          if (outcome.kind === "dead") report.dead++;
          message.ack();
        }
      }
    } catch (error) {
      logLine("warn", "webhook_message_failed", {
        queue: batch.queue,
        kind: parsed.data.kind,
        attempts: message.attempts,
        ...deps.logFields(error),
      });
      message.retry({ delaySeconds: RETRY_OWN_FAILURE_SECONDS * 2 ** Math.min(message.attempts - 1, 5) });
    }
  }
  logLine("info", "webhook_batch", { queue: batch.queue, ...report });
  return report;
}

/** The dead-letter queue: messages the consumer could not handle however often it tried; counted as lost. */
export function consumeWebhookDeadLetters(batch: MessageBatch<unknown>): number {
  for (const message of batch.messages) {
    const parsed = webhookMessage.safeParse(message.body);
    logLine("error", "webhook_lost", {
      queue: batch.queue,
      kind: parsed.success ? parsed.data.kind : "malformed",
      ...(parsed.success && parsed.data.kind === "delivery" ? { deliveryId: parsed.data.deliveryId } : {}),
      ...(parsed.success && parsed.data.kind === "event" ? { eventId: parsed.data.eventId } : {}),
    });
    message.ack();
  }
  return batch.messages.length;
}

type DeliveryOutcome =
  | { kind: "delivered" }
  | { kind: "retry"; delaySeconds: number }
  | { kind: "dead" }
  | { kind: "gone" };

async function deliver(deliveryId: string, deps: WebhookConsumerDeps): Promise<DeliveryOutcome> {
  const now = deps.clock.now();
  const claim = await deps.store.claim(deliveryId, now, new Date(now.getTime() + WEBHOOK_CLAIM_MS));
  // Another consumer holds it: this message waits for the claim to end, then finds what that one did.
  if (claim.kind === "busy") {
    return {
      kind: "retry",
      delaySeconds: Math.max(1, Math.ceil((claim.until.getTime() - now.getTime()) / 1000)),
    };
  }
  // Delivered, dead or removed, or not yet due (the message that scheduled the next attempt carries it).
  if (claim.kind !== "claimed") return { kind: "gone" };
  const { pending } = claim;
  const refusal = !pending.endpoint.enabled
    ? "not sent: the endpoint is disabled"
    : webhookUrlProblem(pending.endpoint.url, { allowLocal: deps.allowLocal });
  const attempt = refusal
    ? { status: null, error: `not sent: url ${refusal}`, response: null }
    : await post(pending);
  const at = deps.clock.now();
  const delivered = attempt.status !== null && webhookDelivered(attempt.status);
  const delaySeconds = delivered || refusal ? null : webhookRetryDelaySeconds(pending.delivery.attempts + 1);
  const failingSince = await deps.store.recordAttempt(deliveryId, {
    ...attempt,
    at,
    durationMs: "durationMs" in attempt ? attempt.durationMs : 0,
    delivered,
    nextAttemptAt: delaySeconds === null ? null : new Date(at.getTime() + delaySeconds * 1000),
  });
  if (delivered) return { kind: "delivered" };
  if (webhookShouldDisable(failingSince, at) && pending.endpoint.enabled) {
    const last = attempt.error ?? `HTTP ${attempt.status}`;
    await deps.store.disable(
      pending.endpoint.id,
      `every delivery failed since ${failingSince?.toISOString()} (last: ${last})`,
      at,
    );
  }
  return delaySeconds === null ? { kind: "dead" } : { kind: "retry", delaySeconds };
}

async function post(
  pending: PendingDelivery,
): Promise<{ status: number | null; error: string | null; response: string | null; durationMs: number }> {
  const started = Date.now();
  const headers = await webhookHeaders(pending.secrets, pending.delivery.id, new Date(), pending.body);
  try {
    const response = await fetch(pending.endpoint.url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "user-agent": "unified-memory-webhooks/1" },
      body: pending.body,
      redirect: "manual",
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    const body = keptResponseBody(await readStart(response.body, WEBHOOK_RESPONSE_BYTES_KEPT + 1));
    const redirected = response.status >= 300 && response.status < 400;
    return {
      status: response.status,
      error: redirected ? "redirects are not followed" : null,
      response: body,
      durationMs: Date.now() - started,
    };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    const message = timedOut
      ? `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`
      : `could not reach the endpoint: ${error instanceof Error ? error.message : String(error)}`;
    return { status: null, error: message.slice(0, 500), response: null, durationMs: Date.now() - started };
  }
}

/** The first `limit` bytes of a body (or fewer), without reading the rest. */
async function readStart(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const out = new Uint8Array(limit);
  let length = 0;
  try {
    while (length < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.length, limit - length);
      out.set(value.subarray(0, take), length);
      length += take;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return out.subarray(0, length);
}
