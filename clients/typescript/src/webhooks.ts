/**
 * The workspace's webhook endpoints (admin scope): register one (its signing secret is answered once), list,
 * change, remove, rotate its secret, send it a test event, and read its deliveries log.
 */
import { request } from "./operations.js";
import type { Transport } from "./transport.js";
import type {
  Webhook,
  WebhookCreated,
  WebhookDeliveriesList,
  WebhookInput,
  WebhookPatch,
  WebhookSecretRotated,
  WebhooksList,
} from "./types.js";

export class WebhooksApi {
  constructor(private readonly transport: Transport) {}

  /** Registers an endpoint; keep the answer's `secret` (`whsec_…`): it is not shown again. */
  create(input: WebhookInput): Promise<WebhookCreated> {
    return this.transport.json(request("createWebhook", { body: input }));
  }

  /** The workspace's endpoints, never their secrets; `disabledReason` says why the service disabled one. */
  list(): Promise<WebhooksList> {
    return this.transport.json(request("listWebhooks"));
  }

  get(id: string): Promise<Webhook> {
    return this.transport.json(request("getWebhook", { params: { id } }));
  }

  /** Changes the URL, events or description; `enabled: true` re-enables an endpoint the service disabled. */
  update(id: string, patch: WebhookPatch): Promise<Webhook> {
    return this.transport.json(request("updateWebhook", { params: { id }, body: patch }));
  }

  /** Removes the endpoint and its deliveries log. */
  async delete(id: string): Promise<void> {
    await this.transport.send(request("deleteWebhook", { params: { id } }));
  }

  /** A new secret, shown once; the previous one keeps signing until `previousSecretValidUntil`. */
  rotateSecret(id: string): Promise<WebhookSecretRotated> {
    return this.transport.json(request("rotateWebhookSecret", { params: { id } }));
  }

  /** Queues a `webhook.test` event for this endpoint only; its delivery shows in `deliveries(id)`. */
  async test(id: string): Promise<void> {
    await this.transport.send(request("testWebhook", { params: { id } }));
  }

  /** The endpoint's newest deliveries: status, attempts, the receiver's last answer or error, duration. */
  deliveries(id: string): Promise<WebhookDeliveriesList> {
    return this.transport.json(request("listWebhookDeliveries", { params: { id } }));
  }
}
