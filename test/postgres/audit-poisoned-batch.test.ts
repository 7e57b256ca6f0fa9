/**
 * One bad event never sinks the audit queue's batch, through the worker's real queue consumer on PostgreSQL:
 * an event with text PostgreSQL refuses (a NUL, a lone surrogate) or a value the database refuses (year 0)
 * sits between good events of other users; the good ones land, and only the bad one is lost, counted and
 * logged.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, expect, it, vi } from "vitest";
import { lostAuditEvents } from "../../src/app/audit";
import type { AuditEvent } from "../../src/domain/audit";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { newUserId } from "../support/auth";
import { testDb } from "../support/memory-agent";

afterEach(() => {
  vi.restoreAllMocks();
});

const event = (actor: string, overrides: Partial<AuditEvent> = {}): AuditEvent => ({
  id: crypto.randomUUID(),
  at: new Date().toISOString(),
  workspaceId: "default",
  actor,
  subject: actor,
  action: "memory.read",
  channel: "mcp",
  client: "agent/1.0",
  requestId: crypto.randomUUID(),
  version: null,
  itemIds: [],
  queryHash: null,
  status: 200,
  ...overrides,
});

const message = (body: unknown) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body });

async function stored(ids: string[]): Promise<string[]> {
  const rows = await testDb().execute<{ id: string }>(
    sql`select id from audit_events where id = any(${`{${ids.join(",")}}`}::uuid[]) order by id`,
  );
  return rows.rows.map((r) => r.id);
}

const lostLines = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls
    .map((args) => String(args[0]))
    .filter((line) => line.includes('"msg":"audit_lost"'))
    .map((line) => JSON.parse(line) as { ids: string[] });

async function consume(messages: ReturnType<typeof message>[]) {
  const batch = createMessageBatch("unified-memory-audit", messages);
  const ctx = createExecutionContext();
  await worker.queue(batch, env as Env, ctx);
  return getQueueResult(batch, ctx);
}

const poisons: [string, Partial<AuditEvent>][] = [
  ["a NUL in the client's name", { client: "evil\u0000client/1.0" }],
  ["a client's name cut inside an emoji", { client: `${"x".repeat(199)}\ud83d` }],
  ["a year PostgreSQL refuses", { at: "0000-01-01T00:00:00.000Z" }],
];

for (const [what, poison] of poisons) {
  it(`an event with ${what} between two good events of other users: the good ones land, the bad one is counted and logged`, async () => {
    const good1 = event(newUserId("ada"));
    const bad = event(newUserId("eve"), poison);
    const good2 = event(newUserId("ben"));
    const lostBefore = lostAuditEvents();
    const errors = vi.spyOn(console, "error");

    // Three messages in one batch (one event each), then one message holding three events.
    const messages = [message({ events: [good1] }), message({ events: [bad] }), message({ events: [good2] })];
    const result = await consume(messages);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks.sort()).toEqual(messages.map((m) => m.id).sort());
    expect(await stored([good1.id, bad.id, good2.id])).toEqual([good1.id, good2.id].sort());

    const [good3, bad2, good4] = [
      event(newUserId("cy")),
      event(newUserId("eve"), poison),
      event(newUserId("di")),
    ];
    const together = message({ events: [good3, bad2, good4] });
    const second = await consume([together]);
    expect(second.retryMessages).toEqual([]);
    expect(second.explicitAcks).toEqual([together.id]);
    expect(await stored([good3.id, bad2.id, good4.id])).toEqual([good3.id, good4.id].sort());

    expect(lostAuditEvents()).toBe(lostBefore + 2);
    expect(lostLines(errors).flatMap((line) => line.ids)).toEqual([bad.id, bad2.id]);
  });
}
