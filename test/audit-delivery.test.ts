/**
 * How audit events reach the table, and what happens when they cannot: the queue consumer writes each event
 * once (a redelivered message adds nothing), retries a batch the database refuses, and the dead-letter
 * consumer counts and logs what it cannot write; a read answered while the whole audit path is down still
 * answers, and the loss is counted and logged.
 */
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { lostAuditEvents } from "../src/app/audit";
import type { Services } from "../src/app/services";
import { buildServices, errorModel } from "../src/composition";
import { consumeAuditBatch, consumeAuditDeadLetters } from "../src/cron/audit-consumer";
import { pruneAudit } from "../src/cron/audit-retention";
import type { AuditEvent, AuditStore } from "../src/domain/audit";
import type { Env } from "../src/env";
import { createApp } from "../src/http/app";
import worker from "../src/index";
import { mcpEndpoint } from "../src/mcp/endpoint";
import { bearer, newUserId } from "./support/auth";
import { item, warmUpWorker } from "./support/items";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  ingestSettled,
  installAgent,
  runAlarm,
  services,
  statement,
  testDb,
} from "./support/memory-agent";

beforeAll(warmUpWorker);
const used: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const id of used.splice(0)) await clearAlarm(id);
});

const event = (actor: string, overrides: Partial<AuditEvent> = {}): AuditEvent => ({
  id: crypto.randomUUID(),
  at: new Date().toISOString(),
  workspaceId: "default",
  actor,
  subject: actor,
  action: "memory.read",
  channel: "http",
  client: "curl/8.5.0",
  requestId: crypto.randomUUID(),
  version: null,
  itemIds: [],
  queryHash: null,
  status: 200,
  ...overrides,
});

const message = (body: unknown, attempts = 1) => ({
  id: crypto.randomUUID(),
  timestamp: new Date(),
  attempts,
  body,
});

async function storedIds(actor: string): Promise<string[]> {
  const rows = await testDb().execute<{ id: string }>(
    sql`select id from audit_events where actor = ${actor} order by id`,
  );
  return rows.rows.map((r) => r.id);
}

const refusingStore: AuditStore = {
  write: async () => {
    throw new Error("connection refused");
  },
  list: async () => ({ events: [], nextCursor: null }),
  prune: async () => 0,
  eraseUser: async () => {},
};

const logLine = (spy: { mock: { calls: unknown[][] } }, msg: string) =>
  spy.mock.calls
    .map((args) => String(args[0]))
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("the audit queue's consumer", () => {
  it("writes a batch's events once by id: a redelivered message adds nothing; a malformed one is acked", async () => {
    const actor = newUserId("queued");
    const events = [event(actor), event(actor, { action: "items.search", queryHash: "ab".repeat(32) })];
    const first = message({ events });
    const bad = message({ events: [{ id: "not-a-uuid" }] });
    for (const batchMessages of [[first, bad], [message({ events }, 2)]]) {
      const batch = createMessageBatch("unified-memory-audit", batchMessages);
      const ctx = createExecutionContext();
      await worker.queue(batch, env as Env, ctx);
      const result = await getQueueResult(batch, ctx);
      console.log("DEBUG", JSON.stringify(result.retryMessages));
      expect(result.retryMessages).toEqual([]);
      expect(result.explicitAcks.sort()).toEqual(batchMessages.map((m) => m.id).sort());
    }
    expect(await storedIds(actor)).toEqual(events.map((e) => e.id).sort());
  });

  it("retries a batch the database refuses, with a growing delay, and acks nothing", async () => {
    const messages = [message({ events: [event("ada")] }, 1), message({ events: [event("ben")] }, 3)];
    const batch = createMessageBatch("unified-memory-audit", messages);
    const warn = vi.spyOn(console, "warn");
    const retries = batch.messages.map((m) => vi.spyOn(m, "retry"));
    const ctx = createExecutionContext();
    const report = await consumeAuditBatch(batch, { store: refusingStore, errors: errorModel });
    await waitOnExecutionContext(ctx);
    const result = await getQueueResult(batch, ctx);
    expect(report).toMatchObject({ messages: 2, written: 0, retried: 2, lost: 0 });
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual(messages.map((m) => m.id));
    // 10 s after a first attempt, 40 s after a third: growing, never a tight loop.
    expect(retries.map((spy) => spy.mock.calls[0]?.[0])).toEqual([
      { delaySeconds: 10 },
      { delaySeconds: 40 },
    ]);
    expect(logLine(warn, "audit_write_failed")).toHaveLength(1);
  });

  it("the dead-letter consumer writes what it can, and counts, logs and acks what it cannot", async () => {
    const actor = newUserId("dead-letter");
    const lostBefore = lostAuditEvents();
    const errors = vi.spyOn(console, "error");
    const lost = message({ events: [event(actor), event(actor)] }, 6);
    const batch = createMessageBatch("unified-memory-audit-dlq", [lost]);
    const ctx = createExecutionContext();
    expect(await consumeAuditDeadLetters(batch, { store: refusingStore, errors: errorModel })).toMatchObject({
      lost: 2,
    });
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual([lost.id]);
    expect(lostAuditEvents()).toBe(lostBefore + 2);
    expect(logLine(errors, "audit_lost")[0]).toMatchObject({ events: 2, lostTotal: lostBefore + 2 });

    // Through the worker's handler with the real store, the dead letters are written after all.
    const saved = message({ events: [event(actor)] }, 6);
    const real = createMessageBatch("unified-memory-audit-dlq", [saved]);
    const realCtx = createExecutionContext();
    await worker.queue(real, env as Env, realCtx);
    expect((await getQueueResult(real, realCtx)).explicitAcks).toEqual([saved.id]);
    expect(await storedIds(actor)).toHaveLength(1);
  });
});

describe("a read while the audit path is down", () => {
  /** The worker's HTTP app with the audit queue (and maybe the store) replaced by refusing ones. */
  function appWith(change: (services: Services) => Partial<Services>) {
    return createApp({
      services: (e, ctx) => {
        const services = buildServices(e, ctx);
        const patch: Partial<Services> = change(services);
        return new Proxy(services, {
          get: (target, key: keyof Services) => (key in patch ? patch[key] : target[key]),
        });
      },
      errors: errorModel,
      endpoints: { "/mcp": mcpEndpoint },
    });
  }

  async function userWithMemory(): Promise<string> {
    const userId = newUserId("down");
    used.push(userId);
    const generator = new FakeGenerator();
    await installAgent(userId, generator);
    const [id] = await ingestSettled(userId, [item({ externalId: "down-1" })]);
    generator.push({ kind: "accept", statements: [statement("Work", "Works on things", id!)] });
    await agentStub(userId).requestRefresh(userId, "manual");
    await runAlarm(userId);
    return userId;
  }

  const refusingQueue = {
    send: async () => {
      throw new Error("queue unavailable");
    },
  };

  it("is answered, and the event goes straight to the table when only the queue refuses", async () => {
    const userId = await userWithMemory();
    const app = appWith(() => ({ auditSink: refusingQueue }));
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request("http://local/memory", { headers: await bearer(userId) }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect(await storedIds(userId)).toHaveLength(1);
  });

  it("is answered when neither the queue nor the table takes the event, and the loss is counted and logged", async () => {
    const userId = await userWithMemory();
    const lostBefore = lostAuditEvents();
    const errors = vi.spyOn(console, "error");
    const app = appWith(() => ({ auditSink: refusingQueue, auditStore: refusingStore }));
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request("http://local/memory", { headers: await bearer(userId) }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ memory: expect.stringContaining("Works on things") });
    expect(lostAuditEvents()).toBe(lostBefore + 1);
    expect(logLine(errors, "audit_lost")[0]).toMatchObject({ events: 1, actions: ["memory.read"] });
    expect(await storedIds(userId)).toEqual([]);
  });
});

describe("retention", () => {
  it("the daily cron deletes events older than AUDIT_RETENTION_DAYS and keeps the rest", async () => {
    const actor = newUserId("retention");
    const day = 86_400_000;
    const old = event(actor, { at: new Date(Date.now() - 401 * day).toISOString() });
    const kept = event(actor, { at: new Date(Date.now() - 399 * day).toISOString() });
    await services().auditStore.write([old, kept]);
    expect(await storedIds(actor)).toEqual([old.id, kept.id].sort());
    const logs = vi.spyOn(console, "log");
    await pruneAudit(services());
    expect(await storedIds(actor)).toEqual([kept.id]);
    expect(logLine(logs, "audit_pruned")[0]?.pruned).toBeGreaterThanOrEqual(1);
  });
});
