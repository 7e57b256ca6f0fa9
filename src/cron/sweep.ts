/** The Cron Trigger's handler: one bounded sweep, reported as one structured log line. */
import { buildServices } from "../composition";
import type { Env } from "../env";
import { type SweepReport, sweep } from "../memory/sweep";

/**
 * Subrequests one invocation may spend: every page is one database round trip, every dispatch one
 * Durable Object call. 1,000 is the long-standing Workers Paid default per invocation (the current
 * limit is higher), so the defaults fit wherever this is deployed.
 */
export const SUBREQUEST_BUDGET = 1000;
/** Kept for the log line and anything the runtime itself counts. */
const RESERVED_SUBREQUESTS = 10;
const DISPATCH_CONCURRENCY = 20;

export async function runSweep(
  env: Env,
  controller: Pick<ScheduledController, "cron" | "scheduledTime">,
): Promise<SweepReport> {
  const services = buildServices(env);
  const { config } = services;
  const maxPages = Math.max(1, SUBREQUEST_BUDGET - RESERVED_SUBREQUESTS - config.sweep.maxDispatch);
  const report = await sweep(
    { store: services.memoryStore, agents: services.memoryAgents, clock: services.clock },
    {
      ttlMs: config.memory.ttlMs,
      pageSize: config.sweep.pageSize,
      maxDispatch: config.sweep.maxDispatch,
      maxPages,
      spreadMs: config.sweep.spreadMs,
      concurrency: DISPATCH_CONCURRENCY,
    },
  );
  console.log(
    JSON.stringify({
      level: "info",
      msg: "sweep",
      cron: controller.cron,
      scheduledTime: new Date(controller.scheduledTime).toISOString(),
      ...report,
    }),
  );
  return report;
}
