/** The Cron Trigger's handler: one bounded sweep, reported as one structured log line. */
import type { Services } from "../app/services";
import { MAX_SUBJECT_KEY_LENGTH } from "../domain/memory";
import type { FanOutLimits } from "../memory/sweep-fanout";
import { type SweepReport, sweep } from "../memory/sweep-plan";
import { MAX_IDS_PER_MESSAGE } from "./sweep-consumer";

/**
 * Subrequests one invocation may spend: every page, cursor read or write is one database round trip,
 * every direct dispatch one Durable Object call, every queue send one sendBatch call. 1,000 is the
 * long-standing Workers Paid default per invocation (the current limit is higher), so the defaults fit
 * wherever this is deployed.
 */
export const SUBREQUEST_BUDGET = 1000;
/** Kept for the log line and anything the runtime itself counts. */
const RESERVED_SUBREQUESTS = 10;
const DISPATCH_CONCURRENCY = 20;
/** Cloudflare Queues: 128 KB a message, 100 messages and 256 KB a sendBatch; kept with a margin. */
export const FAN_OUT_LIMITS: FanOutLimits = {
  idsPerMessage: MAX_IDS_PER_MESSAGE,
  bytesPerMessage: 120_000,
  messagesPerSend: 100,
  bytesPerSend: 240_000,
};

export async function runSweep(
  services: Services,
  controller: Pick<ScheduledController, "cron" | "scheduledTime">,
): Promise<SweepReport> {
  const { config } = services;
  const maxRoundTrips = Math.max(4, SUBREQUEST_BUDGET - RESERVED_SUBREQUESTS - config.sweep.maxDispatch);
  const report = await sweep(
    {
      store: services.sweepSource,
      agents: services.memoryAgents,
      queue: services.sweepQueue,
      cursor: services.sweepCursor,
      clock: services.clock,
      roundTripFailed: (error) =>
        console.warn(
          JSON.stringify({
            level: "warn",
            msg: "sweep_round_trip_failed",
            ...services.errors.logFields(error),
          }),
        ),
    },
    {
      ttlMs: config.memory.ttlMs,
      pageSize: config.sweep.pageSize,
      maxDispatch: config.sweep.maxDispatch,
      maxRoundTrips,
      spreadMs: config.sweep.spreadMs,
      concurrency: DISPATCH_CONCURRENCY,
      fanOut: FAN_OUT_LIMITS,
      maxSubjectIdLength: MAX_SUBJECT_KEY_LENGTH,
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
