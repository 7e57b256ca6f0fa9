/**
 * Sends one batch to POST /items and says what became of each item. Platform-neutral (takes a fetch),
 * so the same code runs in the CLI and, in the tests, against the worker itself.
 * - 429 and 503 (and refused connections) are retried, honouring Retry-After, a bounded number of times.
 * - 422: the answer lists the bad items by index; they are reported and the rest is sent again.
 * - 413: the batch is split in two.
 */
import type { UpsertStatus } from "../../../src/domain/items";
import type { Pending } from "./batches";

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface SenderOptions {
  url: string;
  token: string;
  fetch?: Fetch;
  maxAttempts?: number;
  /** Waits before a retry (replaced in tests); the default sleeps. */
  wait?: (ms: number) => Promise<void>;
}

export type Outcome =
  | { type: "stored"; entry: Pending; status: UpsertStatus }
  | { type: "failed"; entry: Pending; message: string };

export class FatalSendError extends Error {}

const RETRYABLE = new Set([429, 502, 503, 504]);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createSender(options: SenderOptions) {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const maxAttempts = options.maxAttempts ?? 8;
  const wait = options.wait ?? sleep;
  const endpoint = `${options.url.replace(/\/+$/, "")}/items`;

  async function post(batch: Pending[]): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      let response: Response | null = null;
      let failure: unknown = null;
      try {
        response = await doFetch(endpoint, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${options.token}` },
          body: JSON.stringify({ items: batch.map((p) => p.item) }),
        });
      } catch (error) {
        failure = error;
      }
      if (response && !RETRYABLE.has(response.status)) return response;
      if (attempt >= maxAttempts) {
        if (response) return response;
        throw new FatalSendError(`Cannot reach ${endpoint}: ${String(failure)}`);
      }
      await response?.body?.cancel();
      await wait(retryDelayMs(response?.headers.get("retry-after") ?? null, attempt));
    }
  }

  async function send(batch: Pending[]): Promise<Outcome[]> {
    if (batch.length === 0) return [];
    const response = await post(batch);
    const body = (await response.json().catch(() => null)) as ApiAnswer | null;
    if (response.ok && body?.items?.length === batch.length) {
      return batch.map((entry, i) => ({ type: "stored", entry, status: body.items![i]!.status }));
    }
    if (response.status === 401 || response.status === 403) {
      throw new FatalSendError(
        `The server refused the token (${response.status}): ${body?.error?.message ?? ""}`,
      );
    }
    if (response.status === 413 && batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      return [...(await send(batch.slice(0, half))), ...(await send(batch.slice(half)))];
    }
    if (response.status === 422) {
      const problems = badItems(body);
      if (problems.size > 0) {
        const failed: Outcome[] = [...problems].map(([index, message]) => ({
          type: "failed",
          entry: batch[index]!,
          message,
        }));
        const rest = batch.filter((_, i) => !problems.has(i));
        return [...failed, ...(await send(rest))];
      }
    }
    const message = `the server answered ${response.status}: ${body?.error?.message ?? "no explanation"}`;
    return batch.map((entry) => ({ type: "failed", entry, message }));
  }

  return { send };
}

interface ApiAnswer {
  items?: { status: UpsertStatus }[];
  error?: {
    code?: string;
    message?: string;
    details?: { items?: { index: number; path: string; message: string }[] };
  };
}

/** The 422 answer's problems, one message per bad item index. */
function badItems(body: ApiAnswer | null): Map<number, string> {
  const out = new Map<number, string>();
  for (const p of body?.error?.details?.items ?? []) {
    const text = `${p.path}: ${p.message}`;
    out.set(p.index, out.has(p.index) ? `${out.get(p.index)}; ${text}` : text);
  }
  return out;
}

/** Retry-After (seconds or an HTTP date) when given, else exponential backoff; capped at a minute. */
export function retryDelayMs(retryAfter: string | null, attempt: number): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.min(60_000, Math.max(0, seconds * 1000));
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.min(60_000, Math.max(0, at - Date.now()));
  }
  return Math.min(60_000, 250 * 2 ** (attempt - 1));
}
