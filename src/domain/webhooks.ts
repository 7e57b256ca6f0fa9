/**
 * A workspace's webhook endpoints and their deliveries: the model and the store's port. An endpoint's
 * secrets never leave the store except to sign a delivery, and once to the admin who created or rotated it.
 */
import type { WebhookEvent, WebhookEventType, WebhookPayload } from "./webhook-events";

export interface WebhookEndpoint {
  id: string;
  workspaceId: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  /** Why the service disabled the endpoint (null when enabled, or disabled by an admin). */
  disabledReason: string | null;
  /** Since when every delivery failed (null after a success). */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivered", "retrying", "dead", "skipped"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventType: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** The receiver's HTTP status on the last attempt, null when it did not answer. */
  lastStatus: number | null;
  lastError: string | null;
  /** At most 1 KB of the receiver's last answer. */
  lastResponse: string | null;
  durationMs: number | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What the delivery consumer needs to send one delivery. */
export interface PendingDelivery {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  /** The secrets that sign it: the current one, then the previous one while its grace period lasts. */
  secrets: string[];
  /** The body exactly as it is signed and sent. */
  body: string;
}

/**
 * What claiming a delivery found: it is this consumer's to send now; nothing is left to send (delivered, dead,
 * or its endpoint removed); its next attempt is later (the message that scheduled it carries it); or another
 * consumer holds it until `until`. A delivery is sent by one consumer at a time, and never before it is due.
 */
export type DeliveryClaim =
  | { kind: "claimed"; pending: PendingDelivery }
  | { kind: "gone" }
  | { kind: "not_due" }
  | { kind: "busy"; until: Date };

export interface WebhookAttempt {
  at: Date;
  status: number | null;
  error: string | null;
  response: string | null;
  durationMs: number;
  delivered: boolean;
  /** When the next attempt is due; null when this was the last one (or it was delivered). */
  nextAttemptAt: Date | null;
}

export interface WebhookEndpointInput {
  url: string;
  events: WebhookEventType[];
  description?: string | null;
}

export interface WebhookEndpointPatch {
  url?: string;
  events?: WebhookEventType[];
  description?: string | null;
  /** Re-enabling clears the failure record and the reason. */
  enabled?: boolean;
}

export interface WebhookStore {
  create(
    workspaceId: string,
    input: WebhookEndpointInput,
    secret: string,
    at: Date,
  ): Promise<WebhookEndpoint>;
  list(workspaceId: string): Promise<WebhookEndpoint[]>;
  get(workspaceId: string, id: string): Promise<WebhookEndpoint | null>;
  update(
    workspaceId: string,
    id: string,
    patch: WebhookEndpointPatch,
    at: Date,
  ): Promise<WebhookEndpoint | null>;
  remove(workspaceId: string, id: string): Promise<boolean>;
  /** The new secret signs from now on; the old one also signs until `previousValidUntil`. */
  rotateSecret(
    workspaceId: string,
    id: string,
    secret: string,
    previousValidUntil: Date,
    at: Date,
  ): Promise<boolean>;
  /**
   * One delivery row per enabled endpoint of the payload's workspace that subscribes to its type, each
   * created once (ids derived from the event id and the endpoint); returns the ids still to be sent.
   */
  planDeliveries(eventId: string, payload: WebhookPayload, at: Date): Promise<string[]>;
  /** Claims the delivery for one attempt, until `claimUntil` (see DeliveryClaim). */
  claim(deliveryId: string, at: Date, claimUntil: Date): Promise<DeliveryClaim>;
  /**
   * Records an attempt; a failure keeps (or starts) the endpoint's failing_since, a success clears it.
   * Returns the endpoint's failing_since after the attempt.
   */
  recordAttempt(deliveryId: string, attempt: WebhookAttempt): Promise<Date | null>;
  /** Disables an endpoint that has failed too long, with the reason the admin sees. */
  disable(endpointId: string, reason: string, at: Date): Promise<void>;
  deliveries(workspaceId: string, endpointId: string, limit: number): Promise<WebhookDelivery[] | null>;
}

/** An outbox event claimed for one hand-over to the queue. */
export interface ClaimedOutboxEvent extends WebhookEvent {
  /** Hand-overs tried so far, this one included. */
  attempts: number;
}

/**
 * The outbox of events not yet handed to the webhooks queue. Only events some enabled endpoint of their
 * workspace subscribes to are kept (a workspace without webhooks writes nothing).
 */
export interface WebhookOutbox {
  /** Records the events; answers how many were kept. */
  record(events: WebhookEvent[], at: Date): Promise<number>;
  /** Claims up to `limit` events due at `at`, oldest first, each until `claimUntil`. */
  claim(at: Date, limit: number, claimUntil: Date): Promise<ClaimedOutboxEvent[]>;
  /** The queue took them. */
  sent(ids: string[]): Promise<void>;
  /** The queue refused them: each is due again at its `retryAt`, or given up (null). */
  refused(events: { id: string; retryAt: Date | null }[], error: string): Promise<void>;
}
