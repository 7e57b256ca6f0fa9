/**
 * The webhooks' outbox over Postgres. `recordWebhookEvents` is one statement a change puts in its own batch, so
 * the event commits with the change or not at all; it keeps only events some enabled endpoint of their workspace
 * subscribes to. A claim moves a row's next_attempt_at forward by the claim's length (FOR UPDATE SKIP LOCKED:
 * two senders never take the same row); a row the queue took is deleted, one it refused is due again later.
 */
import { type SQL, sql } from "drizzle-orm";
import type { WebhookEvent, WebhookPayload } from "../domain/webhook-events";
import type { WebhookOutbox } from "../domain/webhooks";
import type { Db } from "./client";

type Row = Record<string, unknown>;

/** The insert of `events` into the outbox, for a change's own batch (nothing when no endpoint subscribes). */
export function recordWebhookEvents(events: WebhookEvent[], at: Date, when: SQL = sql`true`): SQL {
  const rows = events.map((e) => ({
    id: e.id,
    workspace: e.payload.workspaceId,
    type: e.payload.type,
    body: JSON.stringify(e.payload),
    endpoint:
      e.payload.type === "webhook.test" && "endpointId" in e.payload.data ? e.payload.data.endpointId : null,
  }));
  const stamp = sql`${at.toISOString()}::timestamptz`;
  return sql`
    insert into webhook_outbox (id, workspace_id, event_type, payload, next_attempt_at, created_at)
    select r.id, r.workspace, r.type, r.body, ${stamp}, ${stamp}
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id uuid, workspace text, type text, body text, endpoint uuid)
    where ${when} and exists (
      select 1 from webhook_endpoints e
      where e.workspace_id = r.workspace and e.enabled
        and (r.type = any(e.events) or (r.type = 'webhook.test' and e.id = r.endpoint)))
    on conflict (id) do nothing`;
}

export function createPgWebhookOutbox(db: Db): WebhookOutbox {
  return {
    async record(events, at) {
      if (events.length === 0) return 0;
      const result = await db.execute(sql`${recordWebhookEvents(events, at)} returning id`);
      return result.rows.length;
    },

    async claim(at, limit, claimUntil) {
      const rows = await db.execute<Row>(sql`
        update webhook_outbox o set next_attempt_at = ${claimUntil.toISOString()}::timestamptz, attempts = o.attempts + 1
        from (select id from webhook_outbox
              where next_attempt_at <= ${at.toISOString()}::timestamptz
              order by next_attempt_at, created_at limit ${limit} for update skip locked) due
        where o.id = due.id
        returning o.id::text as id, o.payload, o.attempts, o.created_at::text as created_at`);
      return rows.rows
        .sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)))
        .map((r) => ({
          id: String(r.id),
          payload: JSON.parse(String(r.payload)) as WebhookPayload,
          attempts: Number(r.attempts),
        }));
    },

    async sent(ids) {
      if (ids.length === 0) return;
      await db.execute(sql`delete from webhook_outbox where id = any(${sql.param(ids)}::uuid[])`);
    },

    async refused(events, error) {
      if (events.length === 0) return;
      const rows = events.map((e) => ({ id: e.id, retry: e.retryAt?.toISOString() ?? null }));
      await db.execute(sql`
        update webhook_outbox o set next_attempt_at = r.retry, last_error = ${error.slice(0, 500)}
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id uuid, retry timestamptz)
        where o.id = r.id`);
    },
  };
}
