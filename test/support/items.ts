/** Helpers for the /items tests: realistic item payloads and calls to the worker as a given user. */
import { exports } from "cloudflare:workers";
import type { ItemRecord } from "../../src/domain/item-schema";
import { bearer, READ_WRITE } from "./auth";

/** One item as POST /items takes it. */
export type ItemPayload = ItemRecord;

export interface Outcome {
  id: string;
  source: string;
  externalId: string;
  status: "created" | "updated" | "unchanged";
}

export const item = (overrides: Partial<ItemPayload> & { externalId: string }): ItemPayload => ({
  source: "gmail",
  kind: "email",
  title: `Subject ${overrides.externalId}`,
  body: `Body of ${overrides.externalId}`,
  author: "Dana Scully <dana@example.com>",
  participants: ["Fox Mulder <fox@example.com>"],
  occurredAt: "2026-03-01T10:00:00Z",
  ...overrides,
});

export async function call(
  userId: string,
  method: string,
  path: string,
  options: {
    body?: unknown;
    /** A streamed body (sent as is, without a Content-Length). */
    stream?: ReadableStream<Uint8Array>;
    scopes?: readonly string[];
    headers?: Record<string, string>;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    ...(await bearer(userId, options.scopes ?? READ_WRITE)),
    ...options.headers,
  };
  let body: string | ReadableStream<Uint8Array> | undefined = options.stream;
  if (options.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  return exports.default.fetch(`http://local${path}`, { method, headers, body });
}

export async function ingest(userId: string, items: ItemPayload[]): Promise<Outcome[]> {
  const res = await call(userId, "POST", "/items", { body: { items } });
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { items: Outcome[] }).items;
}

export async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/**
 * The worker's first request pays for loading its modules, which on a busy machine can take most of a
 * test's time budget: call this in beforeAll (hooks have a longer timeout) so tests time only themselves.
 */
export async function warmUpWorker(): Promise<void> {
  await (await exports.default.fetch("http://local/health")).arrayBuffer();
}
