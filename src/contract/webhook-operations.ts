/**
 * The webhook operations (admin): endpoints of the caller's workspace, their signing secrets (shown once,
 * at creation and at each rotation), a test event, and the log of deliveries.
 */
import { z } from "zod";
import {
  WEBHOOK_DELIVERIES_LIMIT,
  WEBHOOK_DESCRIPTION_MAX_LENGTH,
  WEBHOOK_SECRET_GRACE_MS,
} from "../app/webhooks";
import { WEBHOOK_EVENT_TYPES } from "../domain/webhook-events";
import { WEBHOOK_URL_MAX_LENGTH } from "../domain/webhook-url";
import { WEBHOOK_DELIVERY_STATUSES } from "../domain/webhooks";
import { errorBody } from "./answers";
import { type Answer, operation } from "./operation";

const refusal = (description: string): Answer => ({ description, schema: errorBody });
const MAX_WEBHOOK_BODY_BYTES = 16 * 1024;
const dateTime = z.iso.datetime({ offset: true });
const event = z.enum(WEBHOOK_EVENT_TYPES);

const webhookParams = z.object({ id: z.uuid() });
const ID_DOC = "The endpoint's id";

export const webhookEndpointResponse = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(event),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .describe("Why the service disabled the endpoint (every delivery failed for a day); null otherwise"),
  failingSince: dateTime.nullable().describe("Since when every delivery failed; null after a success"),
  createdAt: dateTime,
  updatedAt: dateTime,
});

const secret = z.string().describe("The signing secret (whsec_…): shown only in this answer");

const webhookDeliveryResponse = z.object({
  id: z.string().describe("The webhook-id header the receiver saw"),
  eventType: event,
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastStatus: z.number().int().nullable().describe("The receiver's HTTP status; null when it did not answer"),
  lastError: z.string().nullable(),
  lastResponse: z.string().nullable().describe("At most 1 KB of the receiver's last answer"),
  durationMs: z.number().int().nullable(),
  nextAttemptAt: dateTime.nullable(),
  createdAt: dateTime,
  updatedAt: dateTime,
});

const url = z.string().min(1).max(WEBHOOK_URL_MAX_LENGTH);
const events = z
  .array(z.string().max(100))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length * 2);
const description = z.string().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).nullable();

const webhookBody = z.strictObject({ url, events, description: description.optional() });
const webhookPatch = z.strictObject({
  url: url.optional(),
  events: events.optional(),
  description: description.optional(),
  enabled: z.boolean().optional().describe("true re-enables an endpoint the service disabled, clearing why"),
});

const URL_RULE =
  "https:// only (WEBHOOKS_ALLOW_LOCAL=true also admits http://127.0.0.1, localhost and [::1] for local " +
  "receivers), no credentials, and no private, loopback, link-local or metadata address";

export const createWebhook = operation({
  id: "createWebhook",
  method: "POST",
  path: "/webhooks",
  access: "admin",
  summary: "Register a webhook endpoint for the workspace's events; the answer shows its signing secret once",
  description:
    `Deliveries are signed as Standard Webhooks specify (webhook-id, webhook-timestamp, webhook-signature). URL: ${URL_RULE}. ` +
    `Events: ${WEBHOOK_EVENT_TYPES.filter((e) => e !== "webhook.test").join(", ")}.`,
  body: { schema: webhookBody, required: true, maxBytes: MAX_WEBHOOK_BODY_BYTES },
  answers: {
    201: { description: "Registered", schema: webhookEndpointResponse.extend({ secret }) },
    400: refusal("A URL that is refused, an unknown event, or a body that is not JSON"),
    413: refusal("The body is too large"),
    415: refusal("The body is not JSON"),
  },
  audit: ["webhook.create"],
});

export const listWebhooks = operation({
  id: "listWebhooks",
  method: "GET",
  path: "/webhooks",
  access: "admin",
  summary: "The workspace's webhook endpoints (never their secrets)",
  answers: {
    200: { description: "The endpoints", schema: z.object({ webhooks: z.array(webhookEndpointResponse) }) },
  },
});

export const getWebhook = operation({
  id: "getWebhook",
  method: "GET",
  path: "/webhooks/{id}",
  access: "admin",
  summary: "One webhook endpoint of the workspace",
  params: webhookParams,
  docs: { id: ID_DOC },
  answers: {
    200: { description: "The endpoint", schema: webhookEndpointResponse },
    404: refusal("No such endpoint in the workspace"),
  },
});

export const updateWebhook = operation({
  id: "updateWebhook",
  method: "PATCH",
  path: "/webhooks/{id}",
  access: "admin",
  summary: "Change an endpoint's URL, events or description, or disable or re-enable it",
  params: webhookParams,
  docs: { id: ID_DOC },
  body: { schema: webhookPatch, required: true, maxBytes: MAX_WEBHOOK_BODY_BYTES },
  answers: {
    200: { description: "Changed", schema: webhookEndpointResponse },
    400: refusal("A URL that is refused, an unknown event, or a body that is not JSON"),
    404: refusal("No such endpoint in the workspace"),
    413: refusal("The body is too large"),
    415: refusal("The body is not JSON"),
  },
  audit: ["webhook.update"],
});

export const deleteWebhook = operation({
  id: "deleteWebhook",
  method: "DELETE",
  path: "/webhooks/{id}",
  access: "admin",
  summary: "Remove an endpoint and its deliveries log; deliveries still queued are dropped",
  params: webhookParams,
  docs: { id: ID_DOC },
  answers: { 204: { description: "Removed" }, 404: refusal("No such endpoint in the workspace") },
  audit: ["webhook.delete"],
});

export const rotateWebhookSecret = operation({
  id: "rotateWebhookSecret",
  method: "POST",
  path: "/webhooks/{id}/rotate-secret",
  access: "admin",
  summary: "A new signing secret, shown once; the previous one keeps signing for a grace period",
  description: `Both secrets sign each delivery for ${WEBHOOK_SECRET_GRACE_MS / 3_600_000} hours, so receivers can switch over.`,
  params: webhookParams,
  docs: { id: ID_DOC },
  answers: {
    200: {
      description: "Rotated",
      schema: z.object({ secret, previousSecretValidUntil: dateTime }),
    },
    404: refusal("No such endpoint in the workspace"),
  },
  audit: ["webhook.rotate_secret"],
});

export const testWebhook = operation({
  id: "testWebhook",
  method: "POST",
  path: "/webhooks/{id}/test",
  access: "admin",
  summary: "Queue a webhook.test event for this endpoint; its delivery shows in the log",
  params: webhookParams,
  docs: { id: ID_DOC },
  answers: {
    202: { description: "Queued", schema: z.object({ queued: z.literal(true) }) },
    400: refusal("The endpoint is disabled"),
    404: refusal("No such endpoint in the workspace"),
  },
  audit: ["webhook.test"],
});

export const listWebhookDeliveries = operation({
  id: "listWebhookDeliveries",
  method: "GET",
  path: "/webhooks/{id}/deliveries",
  access: "admin",
  summary: `The endpoint's newest ${WEBHOOK_DELIVERIES_LIMIT} deliveries: status, attempts, last answer or error, duration`,
  params: webhookParams,
  docs: { id: ID_DOC },
  answers: {
    200: {
      description: "The deliveries, newest first",
      schema: z.object({ deliveries: z.array(webhookDeliveryResponse) }),
    },
    404: refusal("No such endpoint in the workspace"),
  },
});

export const webhookOperations = [
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  testWebhook,
  listWebhookDeliveries,
] as const;
