/**
 * The webhooks' outbox as the producer uses it (queues/webhook-queue.ts), with an in-memory outbox and a queue
 * that can refuse: an event the queue refuses stays in the outbox and is handed over later, after a growing
 * delay, never in a loop; and how a new version's statements are counted against the previous one's.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { WEBHOOK_OUTBOX_CRON } from "../../src/cron/webhook-outbox-cron";
import { outboxRetryDelaySeconds, WEBHOOK_OUTBOX_MAX_ATTEMPTS } from "../../src/domain/webhook-delivery";
import { statementChanges, type WebhookEvent, webhookPayload } from "../../src/domain/webhook-events";
import type { ClaimedOutboxEvent, WebhookOutbox } from "../../src/domain/webhooks";
import { createWebhookEvents, type WebhookMessage } from "../../src/queues/webhook-queue";

class MemoryOutbox implements WebhookOutbox {
  rows = new Map<string, WebhookEvent & { attempts: number; due: Date | null; error: string | null }>();
  async record(events: WebhookEvent[]) {
    for (const e of events) this.rows.set(e.id, { ...e, attempts: 0, due: new Date(0), error: null });
    return events.length;
  }
  async claim(at: Date, limit: number, claimUntil: Date): Promise<ClaimedOutboxEvent[]> {
    const due = [...this.rows.values()].filter((r) => r.due !== null && r.due <= at).slice(0, limit);
    for (const r of due) {
      r.due = claimUntil;
      r.attempts++;
    }
    return due.map(({ id, payload, attempts }) => ({ id, payload, attempts }));
  }
  async sent(ids: string[]) {
    for (const id of ids) this.rows.delete(id);
  }
  async refused(events: { id: string; retryAt: Date | null }[], error: string) {
    for (const e of events) {
      const row = this.rows.get(e.id);
      if (row) Object.assign(row, { due: e.retryAt, error });
    }
  }
}

function setup() {
  let now = new Date("2026-12-05T00:00:00Z");
  const outbox = new MemoryOutbox();
  const queued: WebhookMessage[] = [];
  const queue = {
    refusing: false,
    calls: 0,
    async sendBatch(messages: Iterable<MessageSendRequest<WebhookMessage>>) {
      this.calls++;
      if (this.refusing) throw new Error("Queue send failed: service unavailable");
      queued.push(...[...messages].map((m) => m.body));
    },
  };
  const events = createWebhookEvents({
    queue,
    outbox,
    clock: { now: () => new Date(now) },
    logFields: () => ({}),
  });
  const advance = (seconds: number) => {
    now = new Date(now.getTime() + seconds * 1000);
  };
  return { outbox, queue, queued, events, advance };
}

const payload = () =>
  webhookPayload("subject.erased", "acme", new Date(), { subject: "erased:0123456789abcdef" });

describe("the webhooks' outbox", () => {
  it("hands an emitted event to the queue once and keeps nothing after", async () => {
    const { outbox, queued, events } = setup();
    await events.emit(payload());
    expect(queued).toMatchObject([{ kind: "event", payload: { type: "subject.erased" } }]);
    expect(outbox.rows.size).toBe(0);
    expect(await events.flush()).toEqual({ sent: 0, deferred: 0, givenUp: 0 });
  });

  it("keeps an event the queue refused and sends it later, after a growing delay, never in a loop", async () => {
    const { outbox, queue, queued, events, advance } = setup();
    queue.refusing = true;
    await events.emit(payload());
    expect(queued).toEqual([]);
    const [kept] = [...outbox.rows.values()];
    expect(kept?.error).toMatch(/the queue refused the events \(Error: Queue send failed/);
    // Flushing again at once does not even ask the queue: the event is not due.
    const calls = queue.calls;
    expect(await events.flush()).toEqual({ sent: 0, deferred: 0, givenUp: 0 });
    expect(queue.calls).toBe(calls);

    advance(outboxRetryDelaySeconds(1)!);
    expect(await events.flush()).toEqual({ sent: 0, deferred: 1, givenUp: 0 });
    advance(outboxRetryDelaySeconds(1)!);
    expect(await events.flush()).toEqual({ sent: 0, deferred: 0, givenUp: 0 });
    advance(outboxRetryDelaySeconds(2)! - outboxRetryDelaySeconds(1)!);
    queue.refusing = false;
    expect(await events.flush()).toEqual({ sent: 1, deferred: 0, givenUp: 0 });
    expect(queued).toMatchObject([{ kind: "event", eventId: kept?.id }]);
    expect(outbox.rows.size).toBe(0);
  });

  it("gives up on an event after its last attempt, keeping it with the reason", async () => {
    const { outbox, queue, events, advance } = setup();
    queue.refusing = true;
    await events.emit(payload());
    for (let attempt = 2; attempt <= WEBHOOK_OUTBOX_MAX_ATTEMPTS; attempt++) {
      advance(3600);
      await events.flush();
    }
    expect([...outbox.rows.values()]).toMatchObject([{ due: null, attempts: WEBHOOK_OUTBOX_MAX_ATTEMPTS }]);
    advance(3600);
    expect(await events.flush()).toEqual({ sent: 0, deferred: 0, givenUp: 0 });
  });

  it("waits 30 s after the first refusal, doubling to at most an hour, over about two days", () => {
    const delays = Array.from(
      { length: WEBHOOK_OUTBOX_MAX_ATTEMPTS - 1 },
      (_, i) => outboxRetryDelaySeconds(i + 1)!,
    );
    expect(delays.slice(0, 4)).toEqual([30, 60, 120, 240]);
    expect(Math.max(...delays)).toBe(3600);
    expect(delays.reduce((a, b) => a + b, 0) / 3600).toBeGreaterThan(36);
    expect(outboxRetryDelaySeconds(WEBHOOK_OUTBOX_MAX_ATTEMPTS)).toBeNull();
  });

  it("is flushed by a cron wrangler.toml declares beside the daily sweep's", () => {
    const toml = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");
    const crons = /^crons = (\[.*\])$/m.exec(toml)?.[1] ?? "[]";
    expect(JSON.parse(crons)).toEqual(["0 3 * * *", WEBHOOK_OUTBOX_CRON]);
  });

  it("records nothing without a queue (webhooks off)", async () => {
    const outbox = new MemoryOutbox();
    const events = createWebhookEvents({
      queue: undefined,
      outbox,
      clock: { now: () => new Date() },
      logFields: () => ({}),
    });
    await events.emit(payload());
    expect(outbox.rows.size).toBe(0);
  });
});

describe("a new version's statements against the previous one's", () => {
  it("are matched by id; a statement without an id matches nothing", () => {
    expect(statementChanges([{ id: "a" }, { id: "b" }, {}], [{ id: "b" }, { id: "c" }, {}, {}])).toEqual({
      added: 3,
      removed: 2,
      kept: 1,
    });
    expect(statementChanges(null, [{}, { id: "a" }])).toEqual({ added: 2, removed: 0, kept: 0 });
  });
});
