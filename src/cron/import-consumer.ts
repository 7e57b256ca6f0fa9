/**
 * The imports queue's consumer: each message is one run of an import (app/imports.ts runImport). A run that
 * stopped at its budget queues the next; a run that found the import held by another run is retried after
 * the lease; a failure of the database is retried with growing delay (the retry resumes from the last
 * committed batch) and, past max_retries, the message goes to the dead-letter queue, whose consumer marks
 * the import failed with how far it got. A malformed message is logged and acked.
 */
import { z } from "zod";
import { IMPORT_BUDGET, type ImportRunOutcome, runImport } from "../app/imports";
import type { Services } from "../app/services";

const RETRY_BASE_SECONDS = 30;

const importMessage = z.object({ importId: z.uuid() });

export async function consumeImportBatch(
  batch: MessageBatch<unknown>,
  services: Services,
  budget = IMPORT_BUDGET,
): Promise<Record<ImportRunOutcome | "retried" | "malformed", number>> {
  const report = { done: 0, failed: 0, more: 0, busy: 0, finished: 0, retried: 0, malformed: 0 };
  for (const message of batch.messages) {
    const parsed = importMessage.safeParse(message.body);
    if (!parsed.success) {
      report.malformed++;
      log("error", "import_message_malformed", { queue: batch.queue, messageId: message.id });
      message.ack();
      continue;
    }
    const { importId } = parsed.data;
    try {
      const outcome = await runImport(services, importId, budget);
      report[outcome]++;
      if (outcome === "more") await services.importQueue.send(importId);
      if (outcome === "busy") message.retry({ delaySeconds: Math.ceil(budget.leaseMs / 1000) });
      else message.ack();
    } catch (error) {
      report.retried++;
      log("warn", "import_run_failed", {
        queue: batch.queue,
        importId,
        attempts: message.attempts,
        ...services.errors.logFields(error),
      });
      message.retry({ delaySeconds: RETRY_BASE_SECONDS * 2 ** Math.min(message.attempts - 1, 5) });
    }
  }
  log("info", "import_batch", { queue: batch.queue, ...report });
  return report;
}

/** The dead-letter queue: runs that failed however often they were tried; their imports end as failed. */
export async function consumeImportDeadLetters(
  batch: MessageBatch<unknown>,
  services: Pick<Services, "imports" | "clock">,
): Promise<number> {
  let abandoned = 0;
  for (const message of batch.messages) {
    const parsed = importMessage.safeParse(message.body);
    if (parsed.success) {
      await services.imports.abandon(
        parsed.data.importId,
        "the import could not continue after repeated attempts (the database did not answer, or a run " +
          "ran out of time or memory); the summary shows how far it got",
        services.clock.now(),
      );
      abandoned++;
    }
    log("error", "import_abandoned", { queue: batch.queue, messageId: message.id });
    message.ack();
  }
  return abandoned;
}

function log(level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, msg, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
