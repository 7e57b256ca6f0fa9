/** The daily cron's second task: the audit trail's retention (AUDIT_RETENTION_DAYS), one log line. */
import { pruneAuditTrail } from "../app/audit";
import type { Services } from "../app/services";
import { logLine } from "../log";

export async function pruneAudit(services: Services): Promise<void> {
  try {
    const report = await pruneAuditTrail(services);
    logLine("info", "audit_pruned", { ...report });
  } catch (error) {
    // Tried again by tomorrow's cron: retention is a bound, not a deadline to the minute.
    logLine("warn", "audit_prune_failed", services.errors.logFields(error));
  }
}
