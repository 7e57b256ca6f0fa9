/**
 * The audit trail of a request. An operation begins an event when it starts (so a refusal is recorded too)
 * and fills in what it served (version, item ids); the entry point finishes the request's events at its
 * choke point, where the answer's status, the channel and the client are known, and hands them to the audit
 * queue off the response path. If the queue refuses them they are written to the store directly; if that
 * fails too the loss is counted and logged, and the answer is unaffected.
 */
import {
  AUDIT_TEXT_LIMITS,
  type AuditChannel,
  type AuditEvent,
  type AuditFilter,
  erasedName,
  safeAuditText,
  sha256Hex,
} from "../domain/audit";
import { AppError } from "../domain/errors";
import { localName } from "../domain/workspaces";
import { logLine } from "../log";
import type { AuditEntry } from "./audit-trail";
import { type Caller, requireScope } from "./caller";
import type { Services } from "./services";

export interface AuditOrigin {
  caller: Caller;
  channel: AuditChannel;
  client: string | null;
  requestId: string;
  /** The answer's status, for events that have none of their own. */
  status: number;
}

let lostEvents = 0;

/** Events this isolate could neither queue nor write (also logged, one line per loss). */
export const lostAuditEvents = (): number => lostEvents;

/**
 * Finishes the request's pending events (every string made safe for the table: eventOf) and delivers
 * them after the answer (services.defer). Never throws: the audit path failing costs the events, counted
 * and logged, never the answer.
 */
export function finishAudit(services: Services, origin: AuditOrigin): void {
  if (origin.channel === "http" && services.audit.handedOver) return;
  const entries = services.audit.take();
  if (entries.length === 0) return;
  const events = entries.map((entry) => eventOf(entry, origin));
  void services.defer(deliverAudit(services, events));
}

export function eventOf(entry: AuditEntry, origin: AuditOrigin): AuditEvent {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    workspaceId: safeAuditText(origin.caller.workspaceId, AUDIT_TEXT_LIMITS.name),
    actor: safeAuditText(entry.names?.actor ?? origin.caller.userId, AUDIT_TEXT_LIMITS.name),
    subject: safeAuditText(entry.names?.subject ?? localName(entry.subjectKey), AUDIT_TEXT_LIMITS.name),
    action: entry.action,
    channel: origin.channel,
    client: origin.client === null ? null : safeAuditText(origin.client, AUDIT_TEXT_LIMITS.client),
    requestId: safeAuditText(origin.requestId, AUDIT_TEXT_LIMITS.requestId),
    version: entry.version,
    itemIds: entry.itemIds,
    queryHash: entry.queryHash,
    status: entry.status ?? origin.status,
  };
}

/** The queue; else the store directly; else counted and logged as lost. */
export async function deliverAudit(
  services: Pick<Services, "auditSink" | "auditStore" | "errors">,
  events: AuditEvent[],
): Promise<void> {
  try {
    await services.auditSink.send(events);
    return;
  } catch (error) {
    logLine("warn", "audit_queue_failed", { events: events.length, ...services.errors.logFields(error) });
  }
  try {
    await services.auditStore.write(events);
  } catch (error) {
    recordLoss(events, services.errors.logFields(error));
  }
}

/** What the log names of a lost event: its id ("unknown" when it had none) and action, when known. */
export type LostEvent = Pick<AuditEvent, "id"> & { action?: AuditEvent["action"] };

/** Counts and logs events that are lost for good (never their content beyond ids and actions). */
export function recordLoss(events: LostEvent[], cause: Record<string, unknown>): void {
  lostEvents += events.length;
  logLine("error", "audit_lost", {
    events: events.length,
    lostTotal: lostEvents,
    ids: events.slice(0, 20).map((e) => e.id),
    actions: [...new Set(events.flatMap((e) => (e.action ? [e.action] : [])))],
    ...cause,
  });
}

/** A search query's hash: its text never reaches the trail. */
export const queryHashOf = (query: string | undefined): Promise<string | null> =>
  query === undefined || query === "" ? Promise.resolve(null) : sha256Hex(query);

/** The names an erased user's own erase event carries. */
export async function erasedNames(caller: Caller): Promise<{ actor: string; subject: string }> {
  const name = await erasedName(caller.workspaceId, caller.userId);
  return { actor: name, subject: name };
}

/** GET /audit: the workspace's events, newest first (admin). */
export function workspaceAudit(services: Services, caller: Caller, filter: Omit<AuditFilter, "workspaceId">) {
  requireScope(caller, "admin");
  checkRange(filter);
  return services.auditStore.list({ ...filter, workspaceId: caller.workspaceId });
}

/**
 * GET /audit?format=ndjson: an export of the workspace's events (admin), its first page. Audited as one
 * `audit.export` (a refusal too), whose subject is the export's subject filter, else the admin who exported.
 */
export function exportWorkspaceAudit(
  services: Services,
  caller: Caller,
  filter: Omit<AuditFilter, "workspaceId">,
) {
  const event = services.audit.begin("audit.export", caller.subjectKey);
  if (filter.subject !== undefined) event.names = { actor: caller.userId, subject: filter.subject };
  return workspaceAudit(services, caller, filter);
}

/** GET /me/audit: who read the caller's memory and items, and when. */
export function myAudit(
  services: Services,
  caller: Caller,
  filter: Omit<AuditFilter, "workspaceId" | "subject">,
) {
  checkRange(filter);
  return services.auditStore.list({ ...filter, workspaceId: caller.workspaceId, subject: caller.userId });
}

/** Items named per event whose titles a page of events carries (the console shows this many). */
export const TITLED_ITEMS_PER_EVENT = 5;

/**
 * A page of events with the titles of their items the caller may see (the first few of each event), so a
 * reader sees "Kestrel cut-over runbook", not an id; items the caller cannot see stay ids.
 */
export async function withItemTitles<P extends { events: { itemIds: string[] }[] }>(
  services: Pick<Services, "items">,
  caller: Caller,
  page: P,
): Promise<P & { items: { id: string; kind: string; title: string | null }[] }> {
  const ids = [...new Set(page.events.flatMap((e) => e.itemIds.slice(0, TITLED_ITEMS_PER_EVENT)))];
  const items = ids.length === 0 ? [] : await services.items.getMany(caller.subjectKey, ids);
  return { ...page, items: items.map((i) => ({ id: i.id, kind: i.kind, title: i.title })) };
}

function checkRange(filter: { since?: Date; until?: Date }): void {
  if (filter.since && filter.until && filter.since >= filter.until) {
    throw new AppError("bad_request", '"since" must be before "until"');
  }
}

/** The daily cron: deletes events older than AUDIT_RETENTION_DAYS; how many. */
export async function pruneAuditTrail(services: Pick<Services, "auditStore" | "clock" | "config">) {
  const before = new Date(services.clock.now().getTime() - services.config.audit.retentionDays * 86_400_000);
  const pruned = await services.auditStore.prune(before);
  return { before: before.toISOString(), pruned };
}
