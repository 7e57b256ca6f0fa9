/**
 * Webhook deliveries through the real queue consumer, the real store on the test database and a real
 * receiver over HTTP, which verifies every delivery with the standardwebhooks library: an event reaches
 * the subscribed endpoints of its own workspace only, a failing receiver sees retries with growing delays
 * and then the delivery is dead, a redirect is not followed, an endpoint failing for a day is disabled,
 * and a rotated secret keeps both secrets valid for the grace period.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { consumeWebhookBatch, type WebhookConsumerDeps } from "../src/cron/webhook-consumer";
import type { Clock } from "../src/domain/clock";
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RESPONSE_BYTES_KEPT } from "../src/domain/webhook-delivery";
import { type WebhookPayload, webhookPayload } from "../src/domain/webhook-events";
import { generateWebhookSecret } from "../src/domain/webhook-signature";
import type { WebhookEndpointInput } from "../src/domain/webhooks";
import type { WebhookMessage } from "../src/queues/webhook-queue";
import { services } from "./support/memory-agent";
import { receiver } from "./support/webhook-receiver";

const store = () => services().webhooks;

class TestClock implements Clock {
  constructor(private at: Date) {}
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}

function consumerWith(clock: Clock) {
  const sent: WebhookMessage[] = [];
  const deps: WebhookConsumerDeps = {
    store: store(),
    queue: { sendBatch: async (messages) => sent.push(...[...messages].map((m) => m.body)) },
    clock,
    allowLocal: true,
    logFields: (error) => ({ error: error instanceof Error ? error.name : typeof error }),
  };
  /** Runs one message through the consumer as the queue would deliver it on its `attempts`-th try. */
  const consume = async (body: WebhookMessage, attempts = 1) => {
    const batch = createMessageBatch("unified-memory-webhooks", [
      { id: crypto.randomUUID(), timestamp: clock.now(), attempts, body },
    ]);
    const retry = vi.spyOn(batch.messages[0]!, "retry");
    const ctx = createExecutionContext();
    const report = await consumeWebhookBatch(batch, deps);
    const retryDelay = retry.mock.calls[0]?.[0]?.delaySeconds ?? null;
    return { report, result: await getQueueResult(batch, ctx), retryDelay };
  };
  return { sent, consume };
}

const workspace = () => `ws-${crypto.randomUUID().slice(0, 8)}`;

async function endpoint(workspaceId: string, input: WebhookEndpointInput, at = new Date()) {
  const secret = generateWebhookSecret();
  return { secret, endpoint: await store().create(workspaceId, input, secret, at) };
}

const updated = (workspaceId: string): WebhookPayload =>
  webhookPayload("memory.updated", workspaceId, new Date(), {
    subject: "ada",
    version: crypto.randomUUID(),
    previousVersion: null,
    reason: "refresh",
    statements: { added: 3, removed: 0, kept: 0 },
  });

describe("a webhook event", () => {
  it("reaches the subscribed endpoints of its own workspace, signed so the receiver verifies it", async () => {
    const clock = new TestClock(new Date());
    const { sent, consume } = consumerWith(clock);
    const acme = workspace();
    const hooks = receiver(`acme-${acme}`);
    const other = receiver(`other-${acme}`);
    const subscribed = await endpoint(acme, { url: hooks.url, events: ["memory.updated"] });
    await endpoint(acme, { url: other.url, events: ["subject.erased"] });
    await endpoint(workspace(), { url: other.url, events: ["memory.updated"] });

    const payload = updated(acme);
    const eventId = crypto.randomUUID();
    const planned = await consume({ kind: "event", eventId, payload });
    expect(planned.report.planned).toBe(1);
    expect(planned.result.explicitAcks).toHaveLength(1);
    expect(sent).toHaveLength(1);
    // The event's message redelivered plans the same delivery (one row, one id), not a second one.
    await consume({ kind: "event", eventId, payload });
    expect(sent[1]).toEqual(sent[0]);

    const delivery = sent[0]!;
    const { report } = await consume(delivery);
    expect(report.delivered).toBe(1);
    const [got, ...more] = await hooks.received();
    expect(more).toEqual([]);
    expect(new Webhook(subscribed.secret).verify(got!.body, got!.headers)).toEqual(payload);
    expect(got!.headers["webhook-id"]).toBe(delivery.kind === "delivery" ? delivery.deliveryId : "");
    expect(await other.received()).toEqual([]);

    const [log] = (await store().deliveries(acme, subscribed.endpoint.id, 10)) ?? [];
    expect(log).toMatchObject({
      status: "delivered",
      attempts: 1,
      lastStatus: 204,
      eventType: "memory.updated",
    });
    // A delivery already made is not made again when its message comes back.
    expect((await consume(delivery)).report.delivered).toBe(0);
    expect(await hooks.received()).toHaveLength(1);
  });

  it("to a failing receiver is retried with growing delays, then given up as dead", async () => {
    const clock = new TestClock(new Date());
    const { sent, consume } = consumerWith(clock);
    const acme = workspace();
    const hooks = receiver(`failing-${acme}`);
    await hooks.answer({ status: 500, body: `${"x".repeat(5000)}` });
    const { endpoint: failing } = await endpoint(acme, { url: hooks.url, events: ["memory.updated"] });
    await consume({ kind: "event", eventId: crypto.randomUUID(), payload: updated(acme) });
    const delays: number[] = [];
    for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
      const { retryDelay } = await consume(sent[0]!, attempt);
      if (retryDelay !== null) delays.push(retryDelay);
      clock.advance((retryDelay ?? 0) * 1000);
    }
    expect(await hooks.received()).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(delays).toHaveLength(WEBHOOK_MAX_ATTEMPTS - 1);
    expect(delays.every((d, i) => i === 0 || d >= (delays[i - 1] ?? 0))).toBe(true);
    expect(delays[0]).toBeLessThan(60);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThan(20 * 3600);
    const [log] = (await store().deliveries(acme, failing.id, 10)) ?? [];
    expect(log).toMatchObject({
      status: "dead",
      attempts: WEBHOOK_MAX_ATTEMPTS,
      lastStatus: 500,
      nextAttemptAt: null,
    });
    expect(new TextEncoder().encode(log!.lastResponse ?? "").length).toBe(WEBHOOK_RESPONSE_BYTES_KEPT);
  });

  it("is sent once for two messages of the same delivery, and a duplicate never sends it before it is due", async () => {
    const clock = new TestClock(new Date());
    const { sent, consume } = consumerWith(clock);
    const acme = workspace();
    const hooks = receiver(`twice-${acme}`);
    await endpoint(acme, { url: hooks.url, events: ["memory.updated"] });
    const eventId = crypto.randomUUID();
    // The event's message redelivered: its delivery, never attempted yet, is planned and sent twice.
    await consume({ kind: "event", eventId, payload: updated(acme) });
    await consume({ kind: "event", eventId, payload: updated(acme) });
    expect(sent).toHaveLength(2);
    const both = await Promise.all([consume(sent[0]!), consume(sent[1]!)]);
    expect(await hooks.received()).toHaveLength(1);
    expect(both.map((c) => c.report.delivered).sort()).toEqual([0, 1]);

    const failing = receiver(`twice-failing-${acme}`);
    await failing.answer({ status: 500 });
    const other = workspace();
    await endpoint(other, { url: failing.url, events: ["memory.updated"] });
    await consume({ kind: "event", eventId: crypto.randomUUID(), payload: updated(other) });
    const delivery = sent.at(-1)!;
    expect((await consume(delivery)).retryDelay).toBeGreaterThan(0);
    // A copy of the message arriving before the retry is due is acknowledged without sending.
    const early = await consume(delivery);
    expect(early.result.explicitAcks).toHaveLength(1);
    expect(await failing.received()).toHaveLength(1);
  });

  it("follows no redirect", async () => {
    const { sent, consume } = consumerWith(new TestClock(new Date()));
    const acme = workspace();
    const hooks = receiver(`redirect-${acme}`);
    const target = receiver(`target-${acme}`);
    await hooks.answer({ status: 302, location: target.url });
    const { endpoint: redirecting } = await endpoint(acme, { url: hooks.url, events: ["memory.updated"] });
    await consume({ kind: "event", eventId: crypto.randomUUID(), payload: updated(acme) });
    const { result } = await consume(sent[0]!);
    expect(result.retryMessages).toHaveLength(1);
    expect(await target.received()).toEqual([]);
    const [log] = (await store().deliveries(acme, redirecting.id, 10)) ?? [];
    expect(log).toMatchObject({
      status: "retrying",
      lastStatus: 302,
      lastError: "redirects are not followed",
    });
  });

  it("is not sent to a private address, whatever the store holds", async () => {
    const { sent, consume } = consumerWith(new TestClock(new Date()));
    const acme = workspace();
    const { endpoint: internal } = await endpoint(acme, {
      url: "https://169.254.169.254/latest/meta-data/",
      events: ["memory.updated"],
    });
    await consume({ kind: "event", eventId: crypto.randomUUID(), payload: updated(acme) });
    const { report } = await consume(sent[0]!);
    expect(report.dead).toBe(1);
    const [log] = (await store().deliveries(acme, internal.id, 10)) ?? [];
    expect(log).toMatchObject({ status: "dead", lastStatus: null });
    expect(log!.lastError).toMatch(/private, loopback or reserved/);
  });
});

describe("a webhook endpoint", () => {
  it("that failed every delivery for a day is disabled, and the admin sees why", async () => {
    const clock = new TestClock(new Date("2026-12-01T00:00:00Z"));
    const { sent, consume } = consumerWith(clock);
    const acme = workspace();
    const hooks = receiver(`down-${acme}`);
    await hooks.answer({ status: 503 });
    const { endpoint: down } = await endpoint(
      acme,
      { url: hooks.url, events: ["memory.updated"] },
      clock.now(),
    );
    await consume({ kind: "event", eventId: crypto.randomUUID(), payload: updated(acme) });
    await consume(sent[0]!, 1);
    expect((await store().get(acme, down.id))?.enabled).toBe(true);
    clock.advance(25 * 3600 * 1000);
    await consume({ kind: "event", eventId: crypto.randomUUID(), payload: updated(acme) });
    await consume(sent[1]!, 1);
    const disabled = await store().get(acme, down.id);
    expect(disabled).toMatchObject({ enabled: false });
    expect(disabled!.disabledReason).toMatch(
      /every delivery failed since 2026-12-01T00:00:00.000Z \(last: HTTP 503\)/,
    );
    // A disabled endpoint gets no new deliveries; re-enabling it clears the record.
    expect(
      (await consume({ kind: "event", eventId: crypto.randomUUID(), payload: updated(acme) })).report.planned,
    ).toBe(0);
    const enabled = await store().update(acme, down.id, { enabled: true }, clock.now());
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });

  it("whose secret was rotated signs with both secrets for the grace period, then with the new one", async () => {
    const clock = new TestClock(new Date());
    const { sent, consume } = consumerWith(clock);
    const acme = workspace();
    const hooks = receiver(`rotated-${acme}`);
    const { secret: oldSecret, endpoint: rotated } = await endpoint(acme, {
      url: hooks.url,
      events: ["memory.updated"],
    });
    const newSecret = generateWebhookSecret();
    const graceEnds = new Date(clock.now().getTime() + 3600_000);
    expect(await store().rotateSecret(acme, rotated.id, newSecret, graceEnds, clock.now())).toBe(true);
    expect(await store().rotateSecret(workspace(), rotated.id, newSecret, graceEnds, clock.now())).toBe(
      false,
    );

    await consume({ kind: "event", eventId: crypto.randomUUID(), payload: updated(acme) });
    await consume(sent[0]!);
    clock.advance(2 * 3600_000);
    await consume({ kind: "event", eventId: crypto.randomUUID(), payload: updated(acme) });
    await consume(sent[1]!);
    const [during, after] = await hooks.received();
    expect(() => new Webhook(oldSecret).verify(during!.body, during!.headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(during!.body, during!.headers)).not.toThrow();
    expect(() => new Webhook(oldSecret).verify(after!.body, after!.headers)).toThrow();
    expect(() => new Webhook(newSecret).verify(after!.body, after!.headers)).not.toThrow();
  });

  it("of another workspace cannot be read, changed or removed", async () => {
    const acme = workspace();
    const { endpoint: mine } = await endpoint(acme, {
      url: "https://hooks.example.com/a",
      events: ["memory.updated"],
    });
    const stranger = workspace();
    expect(await store().get(stranger, mine.id)).toBeNull();
    expect(await store().list(stranger)).toEqual([]);
    expect(
      await store().update(stranger, mine.id, { url: "https://evil.example.com/" }, new Date()),
    ).toBeNull();
    expect(await store().deliveries(stranger, mine.id, 10)).toBeNull();
    expect(await store().remove(stranger, mine.id)).toBe(false);
    expect(await store().get(acme, mine.id)).toMatchObject({ url: "https://hooks.example.com/a" });
    expect(await store().remove(acme, mine.id)).toBe(true);
  });
});
