import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, signWebhook, webhookHeaders } from "../../src/domain/webhook-signature";

const body = JSON.stringify({ type: "memory.updated", data: { subject: "ada", version: "v2" } });

describe("webhook signatures (Standard Webhooks)", () => {
  it("are verified by the standardwebhooks library with the secret shown to the admin", async () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const headers = await webhookHeaders([secret], "msg_1", new Date(), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it("match the specification's own example", async () => {
    // The example in the Standard Webhooks specification (standard-webhooks.md, "Signature scheme").
    const signature = await signWebhook(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("during a rotation verify with the old secret and with the new one", async () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const headers = await webhookHeaders([newSecret, oldSecret], "msg_2", new Date(), body);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow(
      WebhookVerificationError,
    );
  });

  it("are refused by the receiver when the body or the timestamp was changed, or the timestamp is stale", async () => {
    const secret = generateWebhookSecret();
    const headers = await webhookHeaders([secret], "msg_3", new Date(), body);
    const receiver = new Webhook(secret);
    expect(() => receiver.verify(`${body} `, { ...headers })).toThrow(WebhookVerificationError);
    const replayed = { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) + 1) };
    expect(() => receiver.verify(body, replayed)).toThrow(WebhookVerificationError);
    const stale = await webhookHeaders([secret], "msg_3", new Date(Date.now() - 10 * 60 * 1000), body);
    expect(() => receiver.verify(body, { ...stale })).toThrow(/too old/i);
  });

  it("need a secret", async () => {
    await expect(webhookHeaders([], "msg_4", new Date(), body)).rejects.toThrow(/at least one secret/);
    await expect(signWebhook("not-a-secret", "msg_4", 1, body)).rejects.toThrow(/whsec_/);
  });
});
