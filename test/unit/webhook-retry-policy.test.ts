import { describe, expect, it } from "vitest";
import {
  keptResponseBody,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RESPONSE_BYTES_KEPT,
  webhookDelivered,
  webhookRetryDelaySeconds,
  webhookShouldDisable,
} from "../../src/domain/webhook-delivery";
import { webhookPayload } from "../../src/domain/webhook-events";

describe("webhook delivery", () => {
  it("retries with growing delays over about a day, then gives up", () => {
    const delays: number[] = [];
    for (let attempt = 1; attempt < WEBHOOK_MAX_ATTEMPTS; attempt++) {
      delays.push(webhookRetryDelaySeconds(attempt) ?? Number.NaN);
    }
    expect(delays.every((d, i) => i === 0 || d >= (delays[i - 1] ?? 0))).toBe(true);
    const total = delays.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3600);
    expect(total).toBeLessThan(30 * 3600);
    expect(webhookRetryDelaySeconds(WEBHOOK_MAX_ATTEMPTS)).toBeNull();
  });

  it("counts only a 2xx as delivered (a redirect is a failure)", () => {
    expect([200, 204, 299].map(webhookDelivered)).toEqual([true, true, true]);
    expect([301, 302, 400, 500].map(webhookDelivered)).toEqual([false, false, false, false]);
  });

  it("keeps at most 1 KB of the receiver's answer, cut at a character and writable as text", () => {
    const long = new TextEncoder().encode(`${"a".repeat(WEBHOOK_RESPONSE_BYTES_KEPT - 1)}€ tail`);
    const kept = keptResponseBody(long);
    expect(kept).toBe("a".repeat(WEBHOOK_RESPONSE_BYTES_KEPT - 1));
    expect(keptResponseBody(new Uint8Array([0x6f, 0x6b, 0x00, 0xff]))).toBe("ok\uFFFD\uFFFD");
  });

  it("disables an endpoint that has failed for a day", () => {
    const now = new Date("2026-12-04T12:00:00Z");
    expect(webhookShouldDisable(null, now)).toBe(false);
    expect(webhookShouldDisable(new Date("2026-12-03T13:00:00Z"), now)).toBe(false);
    expect(webhookShouldDisable(new Date("2026-12-03T12:00:00Z"), now)).toBe(true);
  });
});

describe("webhook payloads", () => {
  it("carry ids, versions and counts", () => {
    const payload = webhookPayload("memory.updated", "acme", new Date("2026-12-04T12:00:00Z"), {
      subject: "ada",
      version: "v2",
      previousVersion: "v1",
      reason: "refresh",
      statements: { added: 2, removed: 1, kept: 5 },
    });
    expect(payload).toEqual({
      type: "memory.updated",
      timestamp: "2026-12-04T12:00:00.000Z",
      workspaceId: "acme",
      data: expect.objectContaining({ subject: "ada", version: "v2" }),
    });
  });

  it("refuse any field beyond the event's schema, so no text can ride along", () => {
    const data = { subject: "ada", version: "v2", versionsRedacted: 1, text: "Ada prefers async updates" };
    expect(() => webhookPayload("memory.redacted", "acme", new Date(), data)).toThrow();
    expect(() => webhookPayload("subject.erased", "acme", new Date(), { subject: "ada" })).toThrow();
  });
});
