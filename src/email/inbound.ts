/**
 * Cloudflare Email Routing → the worker's `email()` handler: a message sent to a user's private ingest
 * address, by an envelope sender its owner allowed, becomes that user's `email` item (app/inbound-email.ts).
 * Unknown or revoked addresses, senders not allowed and oversized messages are refused with a reason (the
 * sender gets a bounce). The refusal is awaited: `setReject` may answer with a promise (the local
 * /cdn-cgi/handler/email endpoint reports the rejection only once it has settled, as production does).
 */
import { admitInboundEmail, storeInboundEmail } from "../app/inbound-email";
import type { Services } from "../app/services";
import { readBounded } from "../read-bounded";

/** The part of Cloudflare's ForwardableEmailMessage this handler uses. */
export interface InboundMessage {
  /** The envelope sender (SMTP MAIL FROM). */
  readonly from: string;
  readonly to: string;
  readonly raw: ReadableStream<Uint8Array>;
  readonly rawSize: number;
  setReject(reason: string): void | Promise<void>;
}

export async function receiveEmail(message: InboundMessage, services: Services): Promise<void> {
  const { maxBytes } = services.config.inboundEmail;
  if (message.rawSize > maxBytes) {
    await message.setReject(`Message too large: ${message.rawSize} bytes; the limit is ${maxBytes} bytes`);
    return;
  }
  const envelope = { from: message.from, to: message.to };
  const admitted = await admitInboundEmail(services, envelope);
  if (!admitted.accepted) {
    await message.setReject(admitted.reason);
    return;
  }
  const raw = await readBounded(message.raw, maxBytes, "cancel");
  if (!raw) {
    await message.setReject(`Message too large: over ${maxBytes} bytes`);
    return;
  }
  const delivered = await storeInboundEmail(services, admitted.owner, envelope, raw);
  if (!delivered.accepted) await message.setReject(delivered.reason);
}
