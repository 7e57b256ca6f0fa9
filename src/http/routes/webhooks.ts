/** The workspace's webhooks (admin): endpoints, secrets shown once, a test event, the deliveries log. */
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from "../../app/webhooks";
import * as op from "../../contract/webhook-operations";
import type { WebhookDelivery, WebhookEndpoint } from "../../domain/webhooks";
import { route } from "../operation-routes";
import { validBody } from "../validation";

const iso = (d: Date | null) => d?.toISOString() ?? null;

const endpointJson = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description,
  enabled: e.enabled,
  disabledReason: e.disabledReason,
  failingSince: iso(e.failingSince),
  createdAt: e.createdAt.toISOString(),
  updatedAt: e.updatedAt.toISOString(),
});

const deliveryJson = (d: WebhookDelivery) => ({
  id: d.id,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  lastResponse: d.lastResponse,
  durationMs: d.durationMs,
  nextAttemptAt: iso(d.nextAttemptAt),
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
});

export const webhooksRoutes = [
  route(op.createWebhook, async (c, { body }) => {
    const input = validBody(op.createWebhook.body.schema, body, { key: "issues" });
    const { endpoint, secret } = await createWebhook(c.get("services"), c.get("caller"), input);
    return c.json({ ...endpointJson(endpoint), secret }, 201);
  }),

  route(op.listWebhooks, async (c) => {
    const webhooks = await listWebhooks(c.get("services"), c.get("caller"));
    return c.json({ webhooks: webhooks.map(endpointJson) });
  }),

  route(op.getWebhook, async (c, { params }) =>
    c.json(endpointJson(await getWebhook(c.get("services"), c.get("caller"), params.id))),
  ),

  route(op.updateWebhook, async (c, { params, body }) => {
    const patch = validBody(op.updateWebhook.body.schema, body, { key: "issues" });
    return c.json(endpointJson(await updateWebhook(c.get("services"), c.get("caller"), params.id, patch)));
  }),

  route(op.deleteWebhook, async (c, { params }) => {
    await deleteWebhook(c.get("services"), c.get("caller"), params.id);
    return c.body(null, 204);
  }),

  route(op.rotateWebhookSecret, async (c, { params }) =>
    c.json(await rotateWebhookSecret(c.get("services"), c.get("caller"), params.id)),
  ),

  route(op.testWebhook, async (c, { params }) =>
    c.json(await testWebhook(c.get("services"), c.get("caller"), params.id), 202),
  ),

  route(op.listWebhookDeliveries, async (c, { params }) => {
    const deliveries = await listWebhookDeliveries(c.get("services"), c.get("caller"), params.id);
    return c.json({ deliveries: deliveries.map(deliveryJson) });
  }),
];
