/** The Cron Trigger's handler: one bounded sweep, reported as one structured log line. */
import { buildServices } from "../composition";
import { createSweepCursorStore } from "../db/sweep-cursor";
import type { Env } from "../env";
import { type SweepReport, sweep } from "../memory/sweep";
import type { FanOutLimits } from "../memory/sweep-fanout";
import { MAX_IDS_PER_MESSAGE } from "./sweep-consumer";
import { createSweepQueue } from "./sweep-queue";

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
/** Subject ids are JWT `sub` claims of at most this many characters (src/http/auth.ts). */
const MAX_SUBJECT_LENGTH = 255;
/** Cloudflare Queues: 128 KB a message, 100 messages and 256 KB a sendBatch; kept with a margin. */
export const FAN_OUT_LIMITS: FanOutLimits = {
  idsPerMessage: MAX_IDS_PER_MESSAGE,
  bytesPerMessage: 120_000,
  messagesPerSend: 100,
  bytesPerSend: 240_000,
};

export async function runSweep(
  env: Env,
  controller: Pick<ScheduledController, "cron" | "scheduledTime">,
): Promise<SweepReport> {
  const services = buildServices(env);
  const { config } = services;
  const maxRoundTrips = Math.max(4, SUBREQUEST_BUDGET - RESERVED_SUBREQUESTS - config.sweep.maxDispatch);
  const report = await sweep(
    {
      store: services.memoryStore,
      agents: services.memoryAgents,
      queue: createSweepQueue(env.SWEEP_QUEUE),
      cursor: createSweepCursorStore(services.db),
      clock: services.clock,
    },
    {
      ttlMs: config.memory.ttlMs,
      pageSize: config.sweep.pageSize,
      maxDispatch: config.sweep.maxDispatch,
      maxRoundTrips,
      spreadMs: config.sweep.spreadMs,
      concurrency: DISPATCH_CONCURRENCY,
      fanOut: FAN_OUT_LIMITS,
      maxSubjectIdLength: MAX_SUBJECT_LENGTH,
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
