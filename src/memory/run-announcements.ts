/**
 * What a run tells the webhooks (domain/webhook-events.ts): a new current version, with how its statements
 * relate to the previous version's (reason `redaction` when a redaction asked for the run, else `refresh`),
 * and failed attempts from the second in a row on. Ids and counts only. The event is recorded in the outbox
 * right after the version's write; if even that fails it is logged, and never fails the run.
 */
import type { RunTrigger, Statement } from "../domain/memory";
import {
  statementChanges,
  type WebhookEvents,
  type WebhookPayload,
  webhookPayload,
} from "../domain/webhook-events";
import { localName, workspaceOf } from "../domain/workspaces";

/** From this many consecutive failed attempts on, each one is announced as `memory.generation_failing`. */
const REPEATED_FAILURES = 2;

type AnnounceLog = (level: "warn", msg: string, subjectKey: string, error: unknown) => void;

export interface Announcer {
  webhooks?: Pick<WebhookEvents, "emit">;
  log: AnnounceLog;
}

export function announceNewVersion(
  deps: Announcer,
  subjectKey: string,
  at: Date,
  version: { id: string; statements: readonly Statement[] },
  previous: { versionId: string; statements: readonly Statement[] } | null,
  trigger: RunTrigger,
): Promise<void> {
  return announce(deps, subjectKey, (workspaceId, subject) =>
    webhookPayload("memory.updated", workspaceId, at, {
      subject,
      version: version.id,
      previousVersion: previous?.versionId ?? null,
      // A run asked for because the memory was redacted (an item deleted, access lost) rebuilds it.
      reason: trigger === "delete" ? "redaction" : "refresh",
      statements: statementChanges(previous?.statements ?? null, version.statements),
    }),
  );
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
