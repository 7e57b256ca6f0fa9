/** The daily cron's second task: the audit trail's retention (AUDIT_RETENTION_DAYS), one log line. */
import { pruneAuditTrail } from "../app/audit";
import type { Services } from "../app/services";

export async function pruneAudit(services: Services): Promise<void> {
  try {
    const report = await pruneAuditTrail(services);
    console.log(JSON.stringify({ level: "info", msg: "audit_pruned", ...report }));
  } catch (error) {
    // Tried again by tomorrow's cron: retention is a bound, not a deadline to the minute.
    console.warn(
      JSON.stringify({ level: "warn", msg: "audit_prune_failed", ...services.errors.logFields(error) }),
    );
  }
}
