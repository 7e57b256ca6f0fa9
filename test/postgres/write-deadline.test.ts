/**
 * A write the worker gave up on does not commit later, on PostgreSQL only (PGlite cannot show a writer
 * waiting on a row lock). The worker's database deadline is also the transaction's statement_timeout, so a
 * write stuck behind a lock is stopped by the database when the worker answers 503, instead of committing
 * once the lock is released (when the client's retry would find its items "unchanged").
 */
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { parseConfig } from "../../src/config/config";
import { createDb } from "../../src/db/client";
import { createItemStore } from "../../src/db/item-store";
import { items } from "../../src/db/schema";
import { newUserId } from "../support/auth";
import { withTransaction } from "../support/ws-transaction";

const config = parseConfig(env);
const DEADLINE_MS = 1000;

const note = (body: string) => ({
  source: "notes",
  externalId: "held",
  kind: "note" as const,
  title: "Held note",
  body,
  occurredAt: new Date("2026-05-01T10:00:00Z"),
});

it("a write stopped at the worker's deadline behind a row lock is not committed when the lock goes", async () => {
  const owner = newUserId("deadline");
  const db = createDb(config);
  const { id } = (await createItemStore(db).upsert(owner, [note("before")])).outcomes[0]!;
  const bodyOf = async () =>
    (await db.select({ body: items.body }).from(items).where(eq(items.id, id)))[0]?.body;
  try {
    await withTransaction(config, async (tx) => {
      await tx.execute(sql`select id from items where id = ${id} for update`);
      // The worker's deadline for this write (createDb sets the module's deadline; restored below).
      const hurried = createItemStore(createDb({ ...config, queryTimeoutMs: DEADLINE_MS }));
      await expect(hurried.upsert(owner, [note("after")])).rejects.toThrow();
      // Past the deadline on the database's side too, while the lock is still held.
      await scheduler.wait(DEADLINE_MS);
    });
    await scheduler.wait(500);
  } finally {
    createDb(config);
  }
  expect(await bodyOf()).toBe("before");
}, 30_000);
