/**
 * The audit queue's consumer: writes a batch's events to the append-only table in one statement, each once
 * by id (a retried message adds nothing). Each event is validated on its own: one the table could not hold
 * (text PostgreSQL refuses, a malformed field) is lost alone, counted and logged, never its batch. When the
 * batch's statement fails, the events are written one by one: those the database refuses are lost alone,
 * counted and logged, and acked; the messages of events the database could not take because it was not
 * answering are retried with growing delay, up to the queue's max_retries, then go to the dead-letter queue,
 * whose consumer writes once more (one by one if need be) and counts, logs and acks what it cannot write
 * (never retried in a loop). A malformed message is logged and acked: retrying cannot make it valid.
 */
import { z } from "zod";
import { type LostEvent, recordLoss } from "../app/audit";
import type { ErrorModel } from "../app/errors";
import {
  AUDIT_ACTIONS,
  AUDIT_CHANNELS,
  AUDIT_TEXT_LIMITS,
  type AuditEvent,
  type AuditStore,
} from "../domain/audit";
import { textProblem } from "../domain/safe-text";
import { logLine } from "../log";

const RETRY_BASE_SECONDS = 10;
const MAX_EVENTS_PER_MESSAGE = 100;

/** Text the table can hold: no NUL, no lone surrogate, bounded. */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => textProblem(value) === null, { message: "must be text PostgreSQL can hold" });
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
const name = text(AUDIT_TEXT_LIMITS.name).min(1);

const auditEvent = z.object({
  id: uuid,
  at: z.iso.datetime({ offset: true }),
  workspaceId: name,
  actor: name,
  subject: name,
  action: z.enum(AUDIT_ACTIONS),
  channel: z.enum(AUDIT_CHANNELS),
  client: text(AUDIT_TEXT_LIMITS.client).nullable(),
  requestId: text(AUDIT_TEXT_LIMITS.requestId).min(1),
  version: uuid.nullable(),
  itemIds: z.array(uuid).max(1000),
  queryHash: text(100).nullable(),
  status: z.number().int().min(100).max(599),
}) satisfies z.ZodType<AuditEvent>;

/** The envelope; its events are validated one by one. */
const auditMessage = z.object({ events: z.array(z.unknown()).min(1).max(MAX_EVENTS_PER_MESSAGE) });

export interface AuditBatchReport {
  messages: number;
  written: number;
  malformed: number;
  retried: number;
  /** Events lost for good: invalid, or refused by the database (each counted and logged). */
  lost: number;
}

interface ConsumerDeps {
  store: Pick<AuditStore, "write">;
  errors: Pick<ErrorModel, "logFields">;
}

interface ParsedMessage {
  message: Message<unknown>;
  events: AuditEvent[];
}

/** The audit queue: one write for the batch; on failure one by one, and only what could not be written waits. */
export async function consumeAuditBatch(
  batch: MessageBatch<unknown>,
  deps: ConsumerDeps,
): Promise<AuditBatchReport> {
  const { valid, report } = parse(batch);
  const pending = await writeAll(batch.queue, valid, deps, report);
  for (const m of valid) {
    if (!pending.has(m)) {
      m.message.ack();
      continue;
    }
    report.retried++;
    m.message.retry({ delaySeconds: RETRY_BASE_SECONDS * 2 ** Math.min(m.message.attempts - 1, 5) });
  }
  logLine("info", "audit_batch", { queue: batch.queue, ...report });
  return report;
}

/** The dead-letter queue: one last write; what it cannot write is lost, counted and logged, and acked. */
export async function consumeAuditDeadLetters(
  batch: MessageBatch<unknown>,
  deps: ConsumerDeps,
): Promise<AuditBatchReport> {
  const { valid, report } = parse(batch);
  const pending = await writeAll(batch.queue, valid, deps, report);
  const unwritten = [...pending.values()].flat();
  if (unwritten.length > 0) {
    report.lost += unwritten.length;
    recordLoss(unwritten, { queue: batch.queue, reason: "database_unavailable" });
  }
  for (const m of valid) m.message.ack();
  logLine("info", "audit_dead_letters", { queue: batch.queue, ...report });
  return report;
}

/**
 * Writes the messages' events in one statement; if it fails, one by one. An event the database refuses is
 * lost alone (counted, logged). Returns the messages with events still unwritten because the database was
 * not answering or failed in another way (the one-by-one pass stops at the first such failure), and those events.
 */
async function writeAll(
  queue: string,
  messages: ParsedMessage[],
  deps: ConsumerDeps,
  report: AuditBatchReport,
): Promise<Map<ParsedMessage, AuditEvent[]>> {
  const pending = new Map<ParsedMessage, AuditEvent[]>();
  const events = messages.flatMap((m) => m.events);
  if (events.length === 0) return pending;
  try {
    await deps.store.write(events);
    report.written += events.length;
    return pending;
  } catch (error) {
    logLine("warn", "audit_write_failed", { queue, events: events.length, ...deps.errors.logFields(error) });
  }
  let unavailable = false;
  for (const m of messages) {
    for (const event of m.events) {
      if (unavailable) {
        pending.set(m, [...(pending.get(m) ?? []), event]);
        continue;
      }
      try {
        await deps.store.write([event]);
        report.written++;
      } catch (error) {
        const cause = deps.errors.logFields(error);
        // Refused: the database answered this statement with an error. Anything else may pass: retry.
        if (typeof cause.sqlstate !== "string" || cause.unavailable === true) {
          unavailable = true;
          pending.set(m, [...(pending.get(m) ?? []), event]);
          continue;
        }
        report.lost++;
        recordLoss([event], { queue, reason: "refused", ...cause });
      }
    }
  }
  return pending;
}

function parse(batch: MessageBatch<unknown>) {
  const report: AuditBatchReport = { messages: 0, written: 0, malformed: 0, retried: 0, lost: 0 };
  const valid: ParsedMessage[] = [];
  for (const message of batch.messages) {
    report.messages++;
    const parsed = auditMessage.safeParse(message.body);
    if (!parsed.success) {
      report.malformed++;
      logLine("warn", "audit_message_malformed", {
        queue: batch.queue,
        messageId: message.id,
        issues: issuesOf(parsed.error),
      });
      message.ack();
      continue;
    }
    const events: AuditEvent[] = [];
    for (const body of parsed.data.events) {
      const event = auditEvent.safeParse(body);
      if (event.success) {
        events.push(event.data);
        continue;
      }
      report.lost++;
      recordLoss([lossOf(body)], { queue: batch.queue, reason: "invalid", issues: issuesOf(event.error) });
    }
    valid.push({ message, events });
  }
  return { valid, report };
}

/** What may be logged of an invalid event: its id and action when they are well formed. */
function lossOf(body: unknown): LostEvent {
  const fields = z.object({
    id: uuid.catch("unknown"),
    action: z.enum(AUDIT_ACTIONS).optional().catch(undefined),
  });
  const parsed = fields.safeParse(body);
  return parsed.success ? parsed.data : { id: "unknown" };
}

/** Paths and messages only: never the values (they may be a user's text). */
const issuesOf = (error: z.ZodError) =>
  error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`);
