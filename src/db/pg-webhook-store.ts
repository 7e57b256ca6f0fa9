/**
 * Webhook endpoints and deliveries over Postgres. Every read and write is scoped by workspace (an admin of
 * one workspace never sees or changes another's endpoints), and deliveries are planned only to endpoints of
 * the event's own workspace. A delivery's id is derived from the event's id and the endpoint, so a
 * redelivered event message plans nothing twice; a delivery is claimed before each attempt, so a redelivered
 * or duplicated delivery message sends nothing twice.
 */
import { type SQL, sql } from "drizzle-orm";
import { WEBHOOK_DUE_TOLERANCE_MS } from "../domain/webhook-delivery";
import type { WebhookEventType, WebhookPayload } from "../domain/webhook-events";
import type {
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookStore,
} from "../domain/webhooks";
import type { Db } from "./client";
import { toDate } from "./item-rows";

const endpointColumns = sql`id::text as id, workspace_id, url, array_to_json(events)::text as events, description,
  enabled, disabled_reason, failing_since::text as failing_since, created_at::text as created_at,
  updated_at::text as updated_at`;

const deliveryColumns = sql`d.id, d.endpoint_id::text as endpoint_id, d.event_type, d.status, d.attempts,
  d.last_status, d.last_error, d.last_response, d.duration_ms, d.next_attempt_at::text as next_attempt_at,
  d.created_at::text as created_at, d.updated_at::text as updated_at`;

type Row = Record<string, unknown>;

function textArray(values: readonly string[]): SQL {
  return sql`${JSON.stringify(values)}::jsonb`;
}

const eventsFromJson = (values: SQL) => sql`array(select jsonb_array_elements_text(${values}))`;

const optionalDate = (value: unknown) =>
  value === null || value === undefined ? null : toDate(String(value));

function toEndpoint(row: Row): WebhookEndpoint {
  return {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    url: String(row.url),
    events: JSON.parse(String(row.events)) as WebhookEventType[],
    description: row.description === null ? null : String(row.description),
    enabled: row.enabled === true || row.enabled === "t" || row.enabled === "true",
    disabledReason: row.disabled_reason === null ? null : String(row.disabled_reason),
    failingSince: optionalDate(row.failing_since),
    createdAt: toDate(String(row.created_at)),
    updatedAt: toDate(String(row.updated_at)),
  };
}

function toDelivery(row: Row): WebhookDelivery {
  const number = (v: unknown) => (v === null ? null : Number(v));
  const text = (v: unknown) => (v === null ? null : String(v));
  return {
    id: String(row.id),
    endpointId: String(row.endpoint_id),
    eventType: String(row.event_type) as WebhookEventType,
    status: String(row.status) as WebhookDeliveryStatus,
    attempts: Number(row.attempts),
    lastStatus: number(row.last_status),
    lastError: text(row.last_error),
    lastResponse: text(row.last_response),
    durationMs: number(row.duration_ms),
    nextAttemptAt: optionalDate(row.next_attempt_at),
    createdAt: toDate(String(row.created_at)),
    updatedAt: toDate(String(row.updated_at)),
  };
}

/** Endpoints of the payload's workspace that are to receive it (a test event: only the endpoint it names). */
function recipients(payload: WebhookPayload): SQL {
  const inWorkspace = sql`e.workspace_id = ${payload.workspaceId} and e.enabled`;
  if (payload.type === "webhook.test" && "endpointId" in payload.data) {
    return sql`${inWorkspace} and e.id = ${payload.data.endpointId}::uuid`;
  }
  return sql`${inWorkspace} and ${payload.type} = any(e.events)`;
}

export function createPgWebhookStore(db: Db): WebhookStore {
  const one = async (query: SQL) => (await db.execute<Row>(query)).rows[0] ?? null;

  return {
    async create(workspaceId, input, secret, at) {
      const row = await one(sql`
        insert into webhook_endpoints (id, workspace_id, url, events, description, secret, created_at, updated_at)
        values (gen_random_uuid(), ${workspaceId}, ${input.url}, ${eventsFromJson(textArray(input.events))},
                ${input.description ?? null}, ${secret}, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz)
        returning ${endpointColumns}`);
      if (!row) throw new Error("webhook endpoint insert returned no row");
      return toEndpoint(row);
    },

    async list(workspaceId) {
      const rows = await db.execute<Row>(sql`
        select ${endpointColumns} from webhook_endpoints where workspace_id = ${workspaceId} order by created_at, id`);
      return rows.rows.map(toEndpoint);
    },

    async get(workspaceId, id) {
      const row = await one(sql`
        select ${endpointColumns} from webhook_endpoints where workspace_id = ${workspaceId} and id = ${id}::uuid`);
      return row ? toEndpoint(row) : null;
    },

    async update(workspaceId, id, patch, at) {
      const sets: SQL[] = [sql`updated_at = ${at.toISOString()}::timestamptz`];
      if (patch.url !== undefined) sets.push(sql`url = ${patch.url}`);
      if (patch.events !== undefined) sets.push(sql`events = ${eventsFromJson(textArray(patch.events))}`);
      if (patch.description !== undefined) sets.push(sql`description = ${patch.description}`);
      if (patch.enabled === true)
        sets.push(sql`enabled = true, disabled_reason = null, failing_since = null`);
      if (patch.enabled === false) sets.push(sql`enabled = false, disabled_reason = null`);
      const row = await one(sql`
        update webhook_endpoints set ${sql.join(sets, sql`, `)}
        where workspace_id = ${workspaceId} and id = ${id}::uuid
        returning ${endpointColumns}`);
      return row ? toEndpoint(row) : null;
    },

    async remove(workspaceId, id) {
      const row = await one(sql`
        delete from webhook_endpoints where workspace_id = ${workspaceId} and id = ${id}::uuid returning id`);
      return row !== null;
    },

    async rotateSecret(workspaceId, id, secret, previousValidUntil, at) {
      const row = await one(sql`
        update webhook_endpoints
        set previous_secret = secret, previous_secret_expires_at = ${previousValidUntil.toISOString()}::timestamptz,
            secret = ${secret}, updated_at = ${at.toISOString()}::timestamptz
        where workspace_id = ${workspaceId} and id = ${id}::uuid returning id`);
      return row !== null;
    },

    async planDeliveries(eventId, payload, at) {
      const deliveryId = sql`'msg_' || md5(${eventId} || ':' || e.id::text)`;
      const stamp = sql`${at.toISOString()}::timestamptz`;
      const [, planned] = await db.batch([
        db.execute(sql`
          insert into webhook_deliveries (id, endpoint_id, event_type, payload, created_at, updated_at)
          select ${deliveryId}, e.id, ${payload.type}, ${JSON.stringify(payload)}, ${stamp}, ${stamp}
          from webhook_endpoints e where ${recipients(payload)}
          on conflict (id) do nothing`),
        db.execute<Row>(sql`
          select d.id from webhook_endpoints e join webhook_deliveries d on d.id = ${deliveryId}
          where ${recipients(payload)} and d.status = 'pending' and d.attempts = 0`),
      ]);
      return planned.rows.map((r) => String(r.id));
    },

    async claim(deliveryId, at, claimUntil) {
      const now = sql`${at.toISOString()}::timestamptz`;
      const until = sql`${claimUntil.toISOString()}::timestamptz`;
      const [found, delivery, endpoint] = await db.batch([
        db.execute<Row>(sql`
          select status, next_attempt_at::text as next_attempt_at, claimed_until::text as claimed_until
          from webhook_deliveries where id = ${deliveryId}`),
        // Row-locked: of two consumers claiming at once, the second sees the first's claim and leaves it.
        db.execute<Row>(sql`
          with claimed as (
            update webhook_deliveries set claimed_until = ${until}
            where id = ${deliveryId} and status in ('pending', 'retrying')
              and (next_attempt_at is null or next_attempt_at <= ${now} + ${`${WEBHOOK_DUE_TOLERANCE_MS} milliseconds`}::interval)
              and (claimed_until is null or claimed_until <= ${now})
            returning id)
          select ${deliveryColumns}, d.payload, e.secret,
                 case when e.previous_secret_expires_at > ${now} then e.previous_secret end as previous_secret
          from claimed c join webhook_deliveries d on d.id = c.id join webhook_endpoints e on e.id = d.endpoint_id`),
        db.execute<Row>(sql`
          select ${endpointColumns} from webhook_endpoints
          where id = (select endpoint_id from webhook_deliveries where id = ${deliveryId})`),
      ]);
      const row = delivery.rows[0];
      const endpointRow = endpoint.rows[0];
      if (row && endpointRow) {
        const secrets = [String(row.secret)];
        if (row.previous_secret !== null) secrets.push(String(row.previous_secret));
        return {
          kind: "claimed",
          pending: {
            delivery: toDelivery(row),
            endpoint: toEndpoint(endpointRow),
            secrets,
            body: String(row.payload),
          },
        };
      }
      const before = found.rows[0];
      if (!before || !endpointRow || !["pending", "retrying"].includes(String(before.status))) {
        return { kind: "gone" };
      }
      const claimedUntil = optionalDate(before.claimed_until);
      if (claimedUntil && claimedUntil > at) return { kind: "busy", until: claimedUntil };
      return { kind: "not_due" };
    },

    async recordAttempt(deliveryId, attempt) {
      const status: WebhookDeliveryStatus = attempt.delivered
        ? "delivered"
        : attempt.nextAttemptAt
          ? "retrying"
          : "dead";
      const stamp = sql`${attempt.at.toISOString()}::timestamptz`;
      const [updated, endpoint] = await db.batch([
        db.execute<Row>(sql`
          update webhook_deliveries
          set attempts = attempts + 1, status = ${status}, last_status = ${attempt.status},
              last_error = ${attempt.error}, last_response = ${attempt.response}, duration_ms = ${attempt.durationMs},
              next_attempt_at = ${attempt.nextAttemptAt?.toISOString() ?? null}::timestamptz, updated_at = ${stamp},
              claimed_until = null
          where id = ${deliveryId} returning endpoint_id`),
        db.execute(sql`
          update webhook_endpoints
          set failing_since = ${attempt.delivered ? sql`null` : sql`coalesce(failing_since, ${stamp})`}
          where id = (select endpoint_id from webhook_deliveries where id = ${deliveryId})
          returning failing_since::text as failing_since`),
      ]);
      if (updated.rows.length === 0) throw new Error(`webhook delivery ${deliveryId} not found`);
      return optionalDate(endpoint.rows[0]?.failing_since);
    },

    async disable(endpointId, reason, at) {
      await db.execute(sql`
        update webhook_endpoints set enabled = false, disabled_reason = ${reason},
               updated_at = ${at.toISOString()}::timestamptz
        where id = ${endpointId}::uuid and enabled`);
    },

    async deliveries(workspaceId, endpointId, limit) {
      const [endpoint, rows] = await db.batch([
        db.execute<Row>(sql`
          select 1 from webhook_endpoints where workspace_id = ${workspaceId} and id = ${endpointId}::uuid`),
        db.execute<Row>(sql`
          select ${deliveryColumns} from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
          where e.workspace_id = ${workspaceId} and d.endpoint_id = ${endpointId}::uuid
          order by d.created_at desc, d.id desc limit ${limit}`),
      ]);
      return endpoint.rows.length === 0 ? null : rows.rows.map(toDelivery);
    },
  };
}
