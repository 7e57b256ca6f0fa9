/**
 * The Cron Trigger's handler: one bounded sweep of stale memories, then (with an embedder) one bounded
 * backfill of items lacking embeddings and the vector index's upkeep, each reported as one structured
 * log line.
 */
import {
  type BackfillReport,
  backfillEmbeddings,
  maintainVectorIndex,
  startModelBackfill,
} from "../app/embeddings";
import { backfillPeople, PEOPLE_BACKFILL, type PeopleBackfillReport } from "../app/people-backfill";
import type { Services } from "../app/services";
import { MAX_SUBJECT_KEY_LENGTH } from "../domain/memory";
import { logLine } from "../log";
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
/** The embeddings backfill's share of the budget: its pages and queue sends, plus its cursor's load and save. */
export const EMBED_BACKFILL_ROUND_TRIPS = 40;
const EMBED_BACKFILL_SCAN = 5000;
/** The vector index's upkeep: the model's size, the index's state and build, a delete, the index list and drops. */
const VECTOR_UPKEEP_ROUND_TRIPS = 8;
/** A previous model's vectors removed per day (one statement). */
const OTHER_MODEL_CHUNKS_PER_RUN = 20_000;
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
  // The people backfill runs after the sweep in the same invocation: a read and a write per batch.
  const backfillShare =
    (services.embedder ? EMBED_BACKFILL_ROUND_TRIPS + 2 + VECTOR_UPKEEP_ROUND_TRIPS : 0) +
    2 * PEOPLE_BACKFILL.batches;
  const maxRoundTrips = Math.max(
    4,
    SUBREQUEST_BUDGET - RESERVED_SUBREQUESTS - config.sweep.maxDispatch - backfillShare,
  );
  const report = await sweep(
    {
      store: services.sweepSource,
      agents: services.memoryAgents,
      queue: services.sweepQueue,
      cursor: services.sweepCursor,
      clock: services.clock,
      roundTripFailed: (error) =>
        logLine("warn", "sweep_round_trip_failed", services.errors.logFields(error)),
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
  logLine("info", "sweep", {
    cron: controller.cron,
    scheduledTime: new Date(controller.scheduledTime).toISOString(),
    ...report,
  });
  await runModelBackfillStart(services);
  await runEmbeddingBackfill(services);
  await runVectorIndexUpkeep(services);
  return report;
}

/** The configured model's index built if missing, a previous model's vectors removed; a failure is logged. */
export async function runVectorIndexUpkeep(services: Services): Promise<void> {
  try {
    const report = await maintainVectorIndex(services, OTHER_MODEL_CHUNKS_PER_RUN);
    if (report) logLine("info", "vector_index_upkeep", { ...report });
  } catch (error) {
    logLine("warn", "vector_index_upkeep_failed", services.errors.logFields(error));
  }
}

/**
 * Hands the items lacking embeddings of the configured model to the embeddings queue, resuming where the
 * previous run stopped. A failure is logged: tomorrow's run resumes from the last saved position.
 */
export async function runEmbeddingBackfill(services: Services): Promise<BackfillReport | null> {
  if (!services.embedder) return null;
  try {
    const after = await services.embedBackfillCursor.load();
    const report = await backfillEmbeddings(services, {
      after,
      scan: EMBED_BACKFILL_SCAN,
      maxRoundTrips: EMBED_BACKFILL_ROUND_TRIPS,
    });
    if (report && report.resumeAfter !== after) await services.embedBackfillCursor.save(report.resumeAfter);
    logLine("info", "embedding_backfill", { resumedFrom: after, ...report });
    return report;
  } catch (error) {
    logLine("warn", "embedding_backfill_failed", services.errors.logFields(error));
    return null;
  }
}

/**
 * Starts the configured model's backfill through the embeddings queue if no one has yet (the worker's
 * first request in an isolate calls this; so does the cron). A failure is logged: the next isolate, or the
 * daily backfill, tries again.
 */
export async function runModelBackfillStart(services: Services): Promise<boolean> {
  try {
    const started = await startModelBackfill(services);
    if (started) {
      logLine("info", "embedding_model_backfill_started", { model: services.embedder?.model });
    }
    return started;
  } catch (error) {
    logLine("warn", "embedding_model_backfill_start_failed", services.errors.logFields(error));
    return false;
  }
}

/**
 * Derives the people of items stored before people evidence existed, a bounded number per run (every
 * scheduled invocation, so a large account catches up within days). A failure is logged; the items stay
 * marked for the next run.
 */
export async function runPeopleBackfill(services: Services): Promise<PeopleBackfillReport | null> {
  try {
    const report = await backfillPeople(services);
    if (report.scanned > 0) logLine("info", "people_backfill", { ...report });
    return report;
  } catch (error) {
    logLine("warn", "people_backfill_failed", services.errors.logFields(error));
    return null;
  }
}
