/**
 * A memory's statements over time, personal or team, the same over HTTP and MCP: the version that was
 * current at an instant, what changed between two versions and why, and the subject's dismissals of
 * statements they know are wrong (dismiss, list, withdraw).
 */
import { AppError, notFound } from "../domain/errors";
import { isStorableInstant, STORABLE_RANGE } from "../domain/instants";
import type { MemoryFormat } from "../domain/memory";
import { isUuid } from "../domain/memory";
import type { DismissalView } from "../memory/dismissal-store";
import { invalidate } from "../memory/memory-cache";
import { etagOf, servedStatements } from "../memory/read-model";
import { storeServedMemory } from "../memory/served-memory";
import { diffVersions } from "../memory/version-diff";
import type { Services } from "./services";

/** A dismissal's reason, as the subject gives it. */
export const MAX_DISMISSAL_REASON_CHARS = 500;

/** ?asOf: an ISO 8601 instant with its zone (or a date, read as its midnight UTC). */
export function parseInstant(value: string, name: string): Date {
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
  const date = iso.test(value) ? new Date(value) : new Date(Number.NaN);
  if (!isStorableInstant(date)) {
    throw new AppError(
      "bad_request",
      `${name} must be an ISO 8601 date or date-time with a zone, ${STORABLE_RANGE}`,
    );
  }
  return date;
}

/**
 * The version that was current at `at` (redactions and dismissals applied, as stored now), in the format
 * asked for; `no_memory_at` when the subject had no memory yet then (or it was erased since).
 */
export async function memoryAsOf(services: Services, subjectKey: string, at: Date, format: MemoryFormat) {
  const event = services.audit.begin("memory.version.read", subjectKey);
  const version = await services.memoryReader.versionAt(subjectKey, at);
  event.version = version?.id ?? null;
  if (!version) {
    throw new AppError("no_memory_at", `There was no memory at ${at.toISOString()}`);
  }
  const head = {
    version: version.id,
    generatedAt: version.generatedAt.toISOString(),
    createdAt: version.createdAt.toISOString(),
    asOf: at.toISOString(),
    current: version.current,
  };
  const body =
    format === "markdown"
      ? { memory: version.markdown, ...head, citations: version.citations }
      : { ...head, statements: servedStatements(version), citations: version.citations };
  return { etag: etagOf(version), body };
}

/**
 * What changed from `against` (default: the version before) to version `id` (default: the current one),
 * statement by statement.
 */
export async function versionDiff(
  services: Services,
  subjectKey: string,
  id: string | undefined,
  against?: string,
) {
  const event = services.audit.begin("memory.diff.read", subjectKey);
  const versionId = id ?? (await services.memoryReader.current(subjectKey))?.version?.id;
  if (versionId === undefined) throw notFound("Memory version");
  const to = isUuid(versionId) ? await services.memoryReader.version(subjectKey, versionId) : null;
  if (!to) throw notFound("Memory version");
  event.version = to.id;
  let from = null;
  if (against !== undefined) {
    from = isUuid(against) ? await services.memoryReader.version(subjectKey, against) : null;
    if (!from) throw notFound("Memory version to compare against");
  } else {
    from = await services.memoryReader.versionBefore(subjectKey, to.id);
  }
  const dismissed = to.removed.some((r) => r.reason === "dismissed");
  return diffVersions(from, to, dismissed ? await services.dismissals.list(subjectKey) : []);
}

export interface DismissalJson {
  id: string;
  statementId: string;
  text: string;
  section: string;
  citations: DismissalView["citations"];
  reason: string | null;
  at: string;
}

const dismissalJson = (d: DismissalView): DismissalJson => ({
  id: d.id,
  statementId: d.statementId,
  text: d.text,
  section: d.section,
  citations: d.citations,
  reason: d.reason,
  at: d.at.toISOString(),
});

/**
 * Takes the statement out of the subject's current version at once, as a redaction does (new ETag), and
 * records the dismissal so later runs do not state it again. The edge cache follows before the answer: the
 * entry is rewritten from Postgres (a verified write, as the agent's), or removed if that fails.
 */
export async function dismissStatement(
  services: Services,
  subjectKey: string,
  statementId: string,
  reason: string | null,
): Promise<{ dismissal: DismissalJson; version: string; etag: string }> {
  const event = services.audit.begin("statement.dismiss", subjectKey);
  if (statementId.length === 0 || statementId.length > 200) throw notFound("Statement");
  const outcome = await services.dismissals.dismiss(subjectKey, statementId, reason, services.clock.now());
  if (outcome.kind === "not_found") throw notFound("Statement in the current memory");
  event.version = outcome.versionId;
  await refreshCacheEntry(services, subjectKey);
  // The dismissal's webhook event was recorded with it: handed to the queue after the answer.
  await services.defer(services.webhookEvents.flush());
  const current = await services.memoryReader.current(subjectKey);
  const etag = current?.version ? etagOf(current.version) : "";
  return { dismissal: dismissalJson(outcome.dismissal), version: outcome.versionId, etag };
}

async function refreshCacheEntry(services: Services, subjectKey: string): Promise<void> {
  if (!services.memoryCache.enabled) return;
  try {
    await storeServedMemory(
      {
        reader: services.memoryReader,
        memoryCache: services.memoryCache,
        clock: services.clock,
        ttlMs: services.config.memory.ttlMs,
      },
      subjectKey,
    );
  } catch {
    // The entry could not be rewritten: removed, so no read is answered from the memory before the dismissal.
    await invalidate(services.memoryCache, { memories: [subjectKey] });
  }
}

/** The subject's dismissals, newest first (each with the dismissed statement's text: audited as a read). */
export async function listDismissals(services: Services, subjectKey: string) {
  services.audit.begin("memory.dismissals.list", subjectKey);
  return { dismissals: (await services.dismissals.list(subjectKey)).map(dismissalJson) };
}

/** Withdraws a dismissal: the statement may return with the next run. */
export async function withdrawDismissal(services: Services, subjectKey: string, id: string): Promise<void> {
  services.audit.begin("dismissal.withdraw", subjectKey);
  if (!isUuid(id) || !(await services.dismissals.withdraw(subjectKey, id))) throw notFound("Dismissal");
}
