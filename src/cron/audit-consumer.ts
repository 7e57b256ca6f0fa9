/**
 * The audit queue's consumer: writes a batch's events to the append-only table in one statement, each once
 * by id (a retried message adds nothing). A batch the store refuses is retried with growing delay, up to the
 * queue's max_retries, then goes to the dead-letter queue; its consumer writes once more and, if that fails
 * too, counts and logs the events as lost and acks them (never retried in a loop). A malformed message is
 * logged and acked: retrying cannot make it valid.
 */
import { z } from "zod";
import { recordLoss } from "../app/audit";
import type { ErrorModel } from "../app/errors";
import { AUDIT_ACTIONS, AUDIT_CHANNELS, type AuditEvent, type AuditStore } from "../domain/audit";

const RETRY_BASE_SECONDS = 10;
const MAX_EVENTS_PER_MESSAGE = 100;

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
const name = z.string().min(1).max(400);

const auditEvent = z.object({
  id: uuid,
  at: z.iso.datetime({ offset: true }),
  workspaceId: name,
  actor: name,
  subject: name,
  action: z.enum(AUDIT_ACTIONS),
  channel: z.enum(AUDIT_CHANNELS),
  client: z.string().max(200).nullable(),
  requestId: z.string().min(1).max(100),
  version: uuid.nullable(),
  itemIds: z.array(uuid).max(1000),
  queryHash: z.string().max(100).nullable(),
  status: z.number().int().min(100).max(599),
}) satisfies z.ZodType<AuditEvent>;

const auditMessage = z.object({ events: z.array(auditEvent).min(1).max(MAX_EVENTS_PER_MESSAGE) });

export interface AuditBatchReport {
  messages: number;
  written: number;
  malformed: number;
  retried: number;
  lost: number;
}

interface ConsumerDeps {
  store: Pick<AuditStore, "write">;
  errors: Pick<ErrorModel, "logFields">;
}

/** The audit queue: one write for the batch; the whole batch retried when it fails. */
export async function consumeAuditBatch(
  batch: MessageBatch<unknown>,
  deps: ConsumerDeps,
): Promise<AuditBatchReport> {
  const { valid, report } = parse(batch);
  if (valid.length > 0) {
    try {
      await deps.store.write(valid.flatMap((m) => m.events));
      report.written = valid.reduce((n, m) => n + m.events.length, 0);
      for (const m of valid) m.message.ack();
    } catch (error) {
      report.retried = valid.length;
      for (const m of valid) {
        m.message.retry({ delaySeconds: RETRY_BASE_SECONDS * 2 ** Math.min(m.message.attempts - 1, 5) });
      }
      log("warn", "audit_write_failed", { queue: batch.queue, ...report, ...deps.errors.logFields(error) });
    }
  }
  log("info", "audit_batch", { queue: batch.queue, ...report });
  return report;
}

/** The dead-letter queue: one last write; what it cannot write is lost, counted and logged, and acked. */
export async function consumeAuditDeadLetters(
  batch: MessageBatch<unknown>,
  deps: ConsumerDeps,
): Promise<AuditBatchReport> {
  const { valid, report } = parse(batch);
  const events = valid.flatMap((m) => m.events);
  if (events.length > 0) {
    try {
      await deps.store.write(events);
      report.written = events.length;
    } catch (error) {
      report.lost = events.length;
      recordLoss(events, { queue: batch.queue, ...deps.errors.logFields(error) });
    }
  }
  for (const m of valid) m.message.ack();
  log("info", "audit_dead_letters", { queue: batch.queue, ...report });
  return report;
}

function parse(batch: MessageBatch<unknown>) {
  const report: AuditBatchReport = { messages: 0, written: 0, malformed: 0, retried: 0, lost: 0 };
  const valid: { message: Message<unknown>; events: AuditEvent[] }[] = [];
  for (const message of batch.messages) {
    report.messages++;
    const parsed = auditMessage.safeParse(message.body);
    if (parsed.success) {
      valid.push({ message, events: parsed.data.events });
      continue;
    }
    report.malformed++;
    log("warn", "audit_message_malformed", {
      queue: batch.queue,
      messageId: message.id,
      issues: parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`),
    });
    message.ack();
  }
  return { valid, report };
}

function log(level: "info" | "warn", msg: string, fields: Record<string, unknown>): void {
  console.log(JSON.stringify({ level, msg, ...fields }));
}
