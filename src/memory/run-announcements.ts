/**
 * What a run tells the webhooks (domain/webhook-events.ts): a new current version, with how its statements
 * relate to the previous version's (reason `redaction` when a redaction asked for the run, else `refresh`),
 * and failed attempts from the second in a row on. Ids and counts only. A version's event is recorded by the
 * runs ledger in the version's own transaction, then handed to the queue; a failure's event is recorded right
 * after the failure. A refused hand-over stays in the outbox for later; nothing here ever fails the run.
 */
import type { RunTrigger, Statement } from "../domain/memory";
import {
  statementChanges,
  type VersionAnnouncement,
  type WebhookEvents,
  type WebhookPayload,
  webhookPayload,
} from "../domain/webhook-events";
import { localName, workspaceOf } from "../domain/workspaces";

/** From this many consecutive failed attempts on, each one is announced as `memory.generation_failing`. */
const REPEATED_FAILURES = 2;

type AnnounceLog = (level: "warn", msg: string, subjectKey: string, error: unknown) => void;

export interface Announcer {
  webhooks?: Pick<WebhookEvents, "emit" | "flush">;
  log: AnnounceLog;
}

/** The `memory.updated` a new version announces (the ledger adds the version's id when it writes both). */
export function newVersionAnnouncement(
  subjectKey: string,
  statements: readonly Statement[],
  previous: { versionId: string; statements: readonly Statement[] } | null,
  trigger: RunTrigger,
): VersionAnnouncement {
  return {
    workspaceId: workspaceOf(subjectKey),
    data: {
      subject: localName(subjectKey),
      previousVersion: previous?.versionId ?? null,
      // A run asked for because the memory was redacted (an item deleted, access lost) rebuilds it.
      reason: trigger === "delete" ? "redaction" : "refresh",
      statements: statementChanges(previous?.statements ?? null, statements),
    },
  };
}

/** Hands the events the ledger recorded with the version to the queue. */
export async function sendRecordedAnnouncements(deps: Announcer, subjectKey: string): Promise<void> {
  if (!deps.webhooks) return;
  await deps.webhooks
    .flush()
    .catch((error: unknown) => deps.log("warn", "webhook_event_failed", subjectKey, error));
}

export async function announceFailure(
  deps: Announcer,
  subjectKey: string,
  at: Date,
  failure: { failures: number; errorCode: string; nextRunAt: number | null },
): Promise<void> {
  if (failure.failures < REPEATED_FAILURES) return;
  await announce(deps, subjectKey, (workspaceId, subject) =>
    webhookPayload("memory.generation_failing", workspaceId, at, {
      subject,
      attempt: failure.failures,
      errorCode: failure.errorCode,
      nextAttemptAt: failure.nextRunAt === null ? null : new Date(failure.nextRunAt).toISOString(),
    }),
  );
}

async function announce(
  deps: Announcer,
  subjectKey: string,
  payload: (workspaceId: string, subject: string) => WebhookPayload,
): Promise<void> {
  if (!deps.webhooks) return;
  await deps.webhooks
    .emit(payload(workspaceOf(subjectKey), localName(subjectKey)))
    .catch((error: unknown) => deps.log("warn", "webhook_event_failed", subjectKey, error));
}
