/**
 * The imports queue over a Cloudflare Queue binding: one message per run of an import (its id). POST /imports
 * sends the first once the upload is stored; a run that stops at its budget sends the next.
 */
import { AppError } from "../domain/errors";
import type { ImportQueue } from "../import/import-jobs";

export interface ImportMessage {
  importId: string;
}

export function createImportQueue(queue: Queue<ImportMessage> | undefined): ImportQueue {
  return {
    async send(importId) {
      if (!queue) {
        throw new AppError(
          "config_invalid",
          "Imports through the service are off: the worker has no IMPORT_QUEUE binding",
        );
      }
      await queue.send({ importId }, { contentType: "json" });
    },
  };
}
