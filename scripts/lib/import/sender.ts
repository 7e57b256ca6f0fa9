/**
 * Sends one batch to POST /items through the TypeScript client (clients/typescript), which owns batching
 * within the request limits, retries after Retry-After or backoff, the 413 split and the 422 details; here
 * each item's result becomes the import's outcome. Platform-neutral (takes a fetch), so the same code runs
 * in the CLI and, in the tests, against the worker itself.
 */
import { type ItemInput, UnifiedMemory, UnifiedMemoryError } from "../../../clients/typescript/src/index";
import type { Pending } from "../../../src/import/batches";
import type { Outcome } from "../../../src/import/run-import";

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface SenderOptions {
  url: string;
  token: string;
  fetch?: Fetch;
  maxAttempts?: number;
  /** Waits before a retry (replaced in tests); the default sleeps. */
  wait?: (ms: number) => Promise<void>;
}

export class FatalSendError extends Error {}

export function createSender(options: SenderOptions) {
  const client = new UnifiedMemory({
    baseUrl: options.url,
    token: options.token,
    retries: (options.maxAttempts ?? 8) - 1,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.wait ? { sleep: options.wait } : {}),
  });

  async function send(batch: Pending[]): Promise<Outcome[]> {
    if (batch.length === 0) return [];
    let result: Awaited<ReturnType<typeof client.items.upsert>>;
    try {
      result = await client.items.upsert(batch.map((p) => p.item as ItemInput));
    } catch (error) {
      if (error instanceof UnifiedMemoryError && (error.status === 401 || error.status === 403)) {
        throw new FatalSendError(`The server refused the token (${error.status}): ${error.message}`);
      }
      if (error instanceof UnifiedMemoryError && error.status === 0) throw new FatalSendError(error.message);
      throw error;
    }
    return result.items.map((r): Outcome => {
      const entry = batch[r.index]!;
      if (r.ok) return { type: "stored", entry, status: r.status };
      const message =
        r.problems.length > 0
          ? r.problems.map((p) => `${p.path}: ${p.message}`).join("; ")
          : `the server answered ${r.error.status}: ${r.error.message}`;
      return { type: "failed", entry, message };
    });
  }

  return { send };
}
