/**
 * What a webhook tells its receiver. Payloads carry ids, versions and counts, never statement or item
 * text: the receiver reads the memory itself, with its own token, under the access rule. An erased
 * subject is named only by its hashed id (`erased:<hash>`), as the audit trail names it.
 */
import { z } from "zod";

export const WEBHOOK_EVENT_TYPES = [
  "memory.updated",
  "memory.redacted",
  "memory.generation_failing",
  "subject.erased",
  "person.corrected",
  "webhook.test",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Why a memory got a new current version. */
export const MEMORY_UPDATE_REASONS = ["refresh", "redaction", "dismissal", "withdrawal"] as const;

const statementCounts = z.object({
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  kept: z.number().int().nonnegative(),
});

export const webhookEventData = {
  "memory.updated": z.object({
    subject: z.string(),
    version: z.string(),
    previousVersion: z.string().nullable(),
    reason: z.enum(MEMORY_UPDATE_REASONS),
    statements: statementCounts,
  }),
  "memory.redacted": z.object({
    subject: z.string(),
    version: z.string(),
    /** How many stored versions lost statements. */
    versionsRedacted: z.number().int().nonnegative(),
  }),
  "memory.generation_failing": z.object({
    subject: z.string(),
    attempt: z.number().int().positive(),
    errorCode: z.string(),
    nextAttemptAt: z.string().nullable(),
  }),
  "subject.erased": z.object({ subject: z.string().startsWith("erased:") }),
  /** A member merged, split or told apart people, or withdrew such a correction (GET /people/corrections says which identifiers). */
  "person.corrected": z.object({
    correction: z.string(),
    kind: z.enum(["merge", "split", "distinct"]),
    withdrawn: z.boolean(),
  }),
  "webhook.test": z.object({ endpointId: z.string() }),
} satisfies Record<WebhookEventType, z.ZodType>;

export type WebhookEventData<T extends WebhookEventType> = z.infer<(typeof webhookEventData)[T]>;

/** The body of one delivery, as Standard Webhooks suggests: `{type, timestamp, data}`. */
export interface WebhookPayload<T extends WebhookEventType = WebhookEventType> {
  type: T;
  /** ISO 8601, when the event happened. */
  timestamp: string;
  workspaceId: string;
  data: WebhookEventData<T>;
}

/**
 * How a new version's statements relate to the previous version's, by statement id. A statement without an id
 * cannot be matched to anything: it counts as added (in the new version) or removed (in the previous one).
 */
export function statementChanges(
  previous: readonly { id?: string }[] | null,
  current: readonly { id?: string }[],
): { added: number; removed: number; kept: number } {
  const ids = (statements: readonly { id?: string }[]) =>
    new Set(statements.flatMap((s) => (s.id ? [s.id] : [])));
  const unmatched = (statements: readonly { id?: string }[]) => statements.filter((s) => !s.id).length;
  const before = ids(previous ?? []);
  const after = ids(current);
  const kept = [...after].filter((id) => before.has(id)).length;
  return {
    added: after.size - kept + unmatched(current),
    removed: before.size - kept + unmatched(previous ?? []),
    kept,
  };
}

/**
 * The `memory.updated` a run's new version announces, but for the version's id: the runs ledger writes it with
 * the version, in the same transaction, once the id exists.
 */
export interface VersionAnnouncement {
  workspaceId: string;
  data: Omit<WebhookEventData<"memory.updated">, "version">;
}

/** An event as the outbox keeps it: its id is the one every delivery of it derives its own from. */
export interface WebhookEvent {
  id: string;
  payload: WebhookPayload;
}

/** What one hand-over of due outbox events to the queue did. */
export interface OutboxFlushReport {
  sent: number;
  /** The queue refused them: each is tried again later, after a growing delay. */
  deferred: number;
  /** Refused too many times: kept in the outbox with the reason, not tried again. */
  givenUp: number;
}

/**
 * Where events go. `emit` records the event in the outbox right after the change it announces, then hands
 * due events to the queue; changes that can write their event in their own transaction do so (the database
 * adapters), and `flush` hands those over. A queue that refuses leaves the events in the outbox for later.
 */
export interface WebhookEvents {
  emit<T extends WebhookEventType>(payload: WebhookPayload<T>): Promise<void>;
  flush(): Promise<OutboxFlushReport>;
}

/** A payload after checking its data against the event's schema (so no text field can slip in). */
export function webhookPayload<T extends WebhookEventType>(
  type: T,
  workspaceId: string,
  at: Date,
  data: WebhookEventData<T>,
): WebhookPayload<T> {
  const parsed = webhookEventData[type].strict().parse(data) as WebhookEventData<T>;
  return { type, timestamp: at.toISOString(), workspaceId, data: parsed };
}
