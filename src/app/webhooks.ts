/**
 * A workspace's webhooks, managed by its admins (the entry points admit only admin tokens): endpoints with
 * the events they receive, a signing secret shown once (at creation and at each rotation), a test event, and
 * the log of deliveries. Every change is audited. Deliveries themselves happen off the request path
 * (cron/webhook-consumer.ts).
 */
import { AppError, notFound } from "../domain/errors";
import { textProblem } from "../domain/safe-text";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType, webhookPayload } from "../domain/webhook-events";
import { generateWebhookSecret } from "../domain/webhook-signature";
import { webhookUrlProblem } from "../domain/webhook-url";
import type { WebhookEndpoint, WebhookEndpointPatch } from "../domain/webhooks";
import type { Caller } from "./caller";
import type { Services } from "./services";

/** How long the previous secret keeps signing after a rotation, so receivers can switch over. */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;
export const WEBHOOK_DELIVERIES_LIMIT = 100;

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string | null;
}

function checkedUrl(services: Services, url: string): string {
  const problem = webhookUrlProblem(url, services.config.webhooks);
  if (problem) throw new AppError("bad_request", `url ${problem}`);
  return url;
}

function checkedEvents(events: string[]): WebhookEventType[] {
  if (events.length === 0) throw new AppError("bad_request", "events must name at least one event");
  const unknown = events.filter((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0) {
    throw new AppError(
      "bad_request",
      `events: unknown ${unknown.map((e) => JSON.stringify(e)).join(", ")}; known: ${WEBHOOK_EVENT_TYPES.join(", ")}`,
    );
  }
  return [...new Set(events)] as WebhookEventType[];
}

function checkedDescription(description: string | null | undefined): string | null {
  if (description === undefined || description === null) return null;
  const problem = textProblem(description);
  if (problem) throw new AppError("bad_request", `description ${problem}`);
  if (description.length > WEBHOOK_DESCRIPTION_MAX_LENGTH) {
    throw new AppError(
      "bad_request",
      `description must be at most ${WEBHOOK_DESCRIPTION_MAX_LENGTH} characters`,
    );
  }
  return description;
}

/** The new endpoint and its signing secret (shown this once). */
export async function createWebhook(services: Services, caller: Caller, input: WebhookInput) {
  services.audit.begin("webhook.create", caller.subjectKey);
  const secret = generateWebhookSecret();
  const endpoint = await services.webhooks.create(
    caller.workspaceId,
    {
      url: checkedUrl(services, input.url),
      events: checkedEvents(input.events),
      description: checkedDescription(input.description),
    },
    secret,
    services.clock.now(),
  );
  return { endpoint, secret };
}

export function listWebhooks(services: Services, caller: Caller): Promise<WebhookEndpoint[]> {
  return services.webhooks.list(caller.workspaceId);
}

export async function getWebhook(services: Services, caller: Caller, id: string): Promise<WebhookEndpoint> {
  return (await services.webhooks.get(caller.workspaceId, id)) ?? Promise.reject(notFound("Webhook"));
}

export async function updateWebhook(
  services: Services,
  caller: Caller,
  id: string,
  patch: { url?: string; events?: string[]; description?: string | null; enabled?: boolean },
): Promise<WebhookEndpoint> {
  services.audit.begin("webhook.update", caller.subjectKey);
  const checked: WebhookEndpointPatch = {
    ...(patch.url === undefined ? {} : { url: checkedUrl(services, patch.url) }),
    ...(patch.events === undefined ? {} : { events: checkedEvents(patch.events) }),
    ...(patch.description === undefined ? {} : { description: checkedDescription(patch.description) }),
    ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
  };
  const updated = await services.webhooks.update(caller.workspaceId, id, checked, services.clock.now());
  if (!updated) throw notFound("Webhook");
  return updated;
}

export async function deleteWebhook(services: Services, caller: Caller, id: string): Promise<void> {
  services.audit.begin("webhook.delete", caller.subjectKey);
  if (!(await services.webhooks.remove(caller.workspaceId, id))) throw notFound("Webhook");
}

/** A new secret signs from now on; the previous one also signs for WEBHOOK_SECRET_GRACE_MS. */
export async function rotateWebhookSecret(services: Services, caller: Caller, id: string) {
  services.audit.begin("webhook.rotate_secret", caller.subjectKey);
  const at = services.clock.now();
  const secret = generateWebhookSecret();
  const previousValidUntil = new Date(at.getTime() + WEBHOOK_SECRET_GRACE_MS);
  if (!(await services.webhooks.rotateSecret(caller.workspaceId, id, secret, previousValidUntil, at))) {
    throw notFound("Webhook");
  }
  return { secret, previousSecretValidUntil: previousValidUntil.toISOString() };
}

/** Queues a `webhook.test` event for this endpoint only; its delivery shows in the log. */
export async function testWebhook(services: Services, caller: Caller, id: string) {
  services.audit.begin("webhook.test", caller.subjectKey);
  const endpoint = await getWebhook(services, caller, id);
  if (!endpoint.enabled) throw new AppError("bad_request", "The webhook is disabled; enable it first");
  await services.webhookEvents.emit(
    webhookPayload("webhook.test", caller.workspaceId, services.clock.now(), { endpointId: id }),
  );
  return { queued: true };
}

export async function listWebhookDeliveries(services: Services, caller: Caller, id: string) {
  const deliveries = await services.webhooks.deliveries(caller.workspaceId, id, WEBHOOK_DELIVERIES_LIMIT);
  if (!deliveries) throw notFound("Webhook");
  return deliveries;
}
