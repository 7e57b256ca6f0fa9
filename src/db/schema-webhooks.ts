/** The webhooks' tables: endpoints, deliveries and the outbox (drizzle/0014, 0019). */
import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./schema-columns";

/**
 * A workspace's webhook endpoints: the events each receives, its signing secret (and the previous one during a
 * rotation), and why the service disabled it.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    url: text("url").notNull(),
    events: text("events").array().notNull(),
    description: text("description"),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: timestamptz("previous_secret_expires_at"),
    enabled: boolean("enabled").notNull().default(true),
    disabledReason: text("disabled_reason"),
    failingSince: timestamptz("failing_since"),
    createdAt: timestamptz("created_at").notNull(),
    updatedAt: timestamptz("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_workspace_idx").on(t.workspaceId, t.createdAt, t.id)],
);

/** One event for one endpoint: created once by its id, claimed before each attempt, and what the receiver said. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
    payload: text("payload").notNull(),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    lastResponse: text("last_response"),
    durationMs: integer("duration_ms"),
    nextAttemptAt: timestamptz("next_attempt_at"),
    claimedUntil: timestamptz("claimed_until"),
    createdAt: timestamptz("created_at").notNull(),
    updatedAt: timestamptz("updated_at").notNull(),
  },
  (t) => [index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt.desc(), t.id.desc())],
);

/** Events not yet handed to the webhooks queue (next_attempt_at null: given up, last_error says why). */
export const webhookOutbox = pgTable(
  "webhook_outbox",
  {
    id: uuid("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    eventType: text("event_type").notNull(),
    payload: text("payload").notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    nextAttemptAt: timestamptz("next_attempt_at"),
    createdAt: timestamptz("created_at").notNull(),
  },
  (t) => [index("webhook_outbox_due_idx").on(t.nextAttemptAt).where(sql`${t.nextAttemptAt} is not null`)],
);
