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

/** How a new version's statements relate to the previous version's, by statement id. */
export function statementChanges(
  previous: readonly { id?: string }[] | null,
  current: readonly { id?: string }[],
): { added: number; removed: number; kept: number } {
  const before = new Set((previous ?? []).map((s) => s.id));
  const after = new Set(current.map((s) => s.id ?? crypto.randomUUID()));
  const kept = [...after].filter((id) => before.has(id)).length;
  return { added: after.size - kept, removed: before.size - kept, kept };
}

/** Where finished events go (the webhooks queue); resolves once the event is handed over. */
export interface WebhookEvents {
  emit<T extends WebhookEventType>(payload: WebhookPayload<T>): Promise<void>;
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
