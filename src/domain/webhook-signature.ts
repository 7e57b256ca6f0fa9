/**
 * Webhook signing as the Standard Webhooks specification defines it, so receivers verify with the
 * existing libraries: secrets are `whsec_` + base64 of random bytes; the signature is HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>`, base64, prefixed `v1,`. During a secret's rotation both secrets
 * sign, space-separated in one header, and a receiver holding either one accepts the delivery.
 */

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** 24 random bytes: within the 24-64 bytes the specification recommends. */
const SECRET_BYTES = 24;

export interface WebhookHeaders {
  "webhook-id": string;
  /** Seconds since the epoch. */
  "webhook-timestamp": string;
  "webhook-signature": string;
}

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** The key bytes of a `whsec_` secret; throws on anything else (a secret is only ever one we generated). */
export function webhookSecretKey(secret: string): Uint8Array {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error("a webhook secret starts with whsec_");
  const key = fromBase64(secret.slice(WEBHOOK_SECRET_PREFIX.length));
  if (key.length === 0) throw new Error("a webhook secret holds key bytes");
  return key;
}

/** `v1,<base64 HMAC>` for one secret. */
export async function signWebhook(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    webhookSecretKey(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signed = new TextEncoder().encode(`${messageId}.${timestampSeconds}.${body}`);
  return `v1,${toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, signed)))}`;
}

/** The three headers of one delivery, signed with every secret currently valid (new first). */
export async function webhookHeaders(
  secrets: readonly string[],
  messageId: string,
  at: Date,
  body: string,
): Promise<WebhookHeaders> {
  if (secrets.length === 0) throw new Error("a webhook delivery needs at least one secret");
  const timestamp = Math.floor(at.getTime() / 1000);
  const signatures = await Promise.all(secrets.map((s) => signWebhook(s, messageId, timestamp, body)));
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatures.join(" "),
  };
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
