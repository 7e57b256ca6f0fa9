/**
 * The audit trail over Postgres: append-only `audit_events`, written once by id (a retried batch skips what
 * is stored); an event naming a user who erased themselves after it happened lands with `erased:<hash>`.
 */
import { and, desc, eq, gte, lt, or, sql } from "drizzle-orm";
import { type AuditEvent, type AuditStore, erasedName } from "../domain/audit";
import { ERASED_PREFIX } from "../domain/workspaces";
import type { Db } from "./client";
import { decodeListCursor, encodeListCursor } from "./list-page";
import { auditEvents } from "./schema";

/** `erased:` and the first 32 hex digits of SHA-256(workspace, U+001F, name): domain/audit.ts erasedName. */
const erasedSql = (workspace: ReturnType<typeof sql>, name: ReturnType<typeof sql>) =>
  sql`${ERASED_PREFIX} || left(encode(sha256(convert_to(${workspace} || chr(31) || ${name}, 'UTF8')), 'hex'), 32)`;

/** The name as stored: hashed when its user erased themselves after `at`. */
const storedName = (name: ReturnType<typeof sql>) => sql`case when exists (
    select 1 from audit_erasures x where x.hash = ${erasedSql(sql`e.workspace_id`, name)} and x.erased_at >= e.at)
  then ${erasedSql(sql`e.workspace_id`, name)} else ${name} end`;

export function createPgAuditStore(db: Db): AuditStore {
  return {
    async write(events) {
      if (events.length === 0) return;
      const rows = JSON.stringify(
        events.map((e) => ({
          id: e.id,
          workspace_id: e.workspaceId,
          at: e.at,
          actor: e.actor,
          subject: e.subject,
          action: e.action,
          channel: e.channel,
          client: e.client,
          request_id: e.requestId,
          version_id: e.version,
          item_ids: e.itemIds,
          query_hash: e.queryHash,
          status: e.status,
        })),
      );
      await db.execute(sql`
        insert into audit_events
          (id, workspace_id, at, actor, subject, action, channel, client, request_id, version_id, item_ids, query_hash, status)
        select e.id, e.workspace_id, e.at, ${storedName(sql`e.actor`)}, ${storedName(sql`e.subject`)}, e.action,
               e.channel, e.client, e.request_id, e.version_id,
               coalesce(array(select jsonb_array_elements_text(e.item_ids)::uuid), '{}'::uuid[]), e.query_hash, e.status
        from jsonb_to_recordset(${rows}::jsonb) as e(id uuid, workspace_id text, at timestamptz, actor text,
             subject text, action text, channel text, client text, request_id text, version_id uuid,
             item_ids jsonb, query_hash text, status int)
        on conflict (id) do nothing`);
    },

    async list(filter) {
      const cursor = filter.cursor ? decodeListCursor(filter.cursor) : null;
      const rows = await db
        .select()
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.workspaceId, filter.workspaceId),
            filter.actor !== undefined ? eq(auditEvents.actor, filter.actor) : undefined,
            filter.subject !== undefined ? eq(auditEvents.subject, filter.subject) : undefined,
            filter.action !== undefined ? eq(auditEvents.action, filter.action) : undefined,
            filter.since ? gte(auditEvents.at, filter.since) : undefined,
            filter.until ? lt(auditEvents.at, filter.until) : undefined,
            cursor
              ? or(
                  lt(auditEvents.at, cursor.at),
                  and(eq(auditEvents.at, cursor.at), lt(auditEvents.id, cursor.id)),
                )
              : undefined,
          ),
        )
        .orderBy(desc(auditEvents.at), desc(auditEvents.id))
        .limit(filter.limit + 1);
      const events = rows.slice(0, filter.limit).map(
        (r): AuditEvent => ({
          id: r.id,
          at: r.at.toISOString(),
          workspaceId: r.workspaceId,
          actor: r.actor,
          subject: r.subject,
          action: r.action as AuditEvent["action"],
          channel: r.channel as AuditEvent["channel"],
          client: r.client,
          requestId: r.requestId,
          version: r.versionId,
          itemIds: r.itemIds,
          queryHash: r.queryHash,
          status: r.status,
        }),
      );
      const last = events.at(-1);
      const more = rows.length > filter.limit;
      return {
        events,
        nextCursor: more && last ? encodeListCursor({ at: new Date(last.at), id: last.id }) : null,
      };
    },

    async prune(before) {
      const result = await db.execute(
        sql`delete from audit_events where at < ${before.toISOString()}::timestamptz`,
      );
      return result.rowCount ?? 0;
    },

    async eraseUser(workspaceId, userId, at) {
      const name = await erasedName(workspaceId, userId);
      await db.batch([
        db.execute(sql`
          insert into audit_erasures (hash, erased_at) values (${name}, ${at.toISOString()}::timestamptz)
          on conflict (hash) do update set erased_at = greatest(audit_erasures.erased_at, excluded.erased_at)`),
        db.execute(sql`
          update audit_events set
            actor = case when actor = ${userId} then ${name} else actor end,
            subject = case when subject = ${userId} then ${name} else subject end
          where workspace_id = ${workspaceId} and (actor = ${userId} or subject = ${userId})`),
      ]);
    },
  };
}
