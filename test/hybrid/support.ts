/** Helpers for the hybrid project's tests (an embedder is configured: see vitest.config.ts). */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { parseConfig } from "../../src/config/config";
import { createDb } from "../../src/db/client";
import { call, json } from "../support/items";

export const db = createDb(parseConfig(env));

export interface Hit {
  id: string;
  externalId: string;
  snippet: string;
  rank: number;
}
export interface Page {
  items: Hit[];
  nextCursor: string | null;
}

export const MODES = ["hybrid", "keyword", "semantic"] as const;

export async function search(user: string, params: string): Promise<Page> {
  const res = await call(user, "GET", `/items?${params}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return json<Page>(res);
}

export const externalIds = (page: Page) => page.items.map((h) => h.externalId);

/**
 * Waits (bounded) until the embeddings queue's consumer has indexed each item for semantic search, as
 * GET /items/:id reports it: the queue delivers in its own time (max_batch_timeout), there is no event to
 * wait on from here.
 */
export async function untilIndexed(user: string, ids: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const id of ids) {
    for (;;) {
      const res = await call(user, "GET", `/items/${id}`);
      const body = await json<{ semanticIndex: string }>(res);
      if (body.semanticIndex === "indexed") break;
      if (Date.now() > deadline) throw new Error(`item ${id} not indexed after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function chunkCount(itemIds: string[]): Promise<number> {
  const result = await db.execute(
    sql`select count(*) as n from item_chunks where item_id = any(${sql.param(itemIds)}::uuid[])`,
  );
  return Number((result.rows[0] as { n: unknown }).n);
}
