/**
 * Cloudflare Email Routing → the worker's `email()` handler: a message sent to a user's private ingest
 * address becomes that user's `email` item, through the same parser as the mbox/eml importers and the
 * same ingest operation as POST /items. Unknown or revoked addresses and oversized messages are refused
 * with a reason (the sender gets a bounce).
 */
import { ingestItems } from "../app/items";
import { ingestAddressOwner } from "../app/me";
import type { Services } from "../app/services";
import { itemInputSchema } from "../domain/item-schema";
import { parseEmail } from "../import/email";
import { readBounded } from "../read-bounded";

/** The part of Cloudflare's ForwardableEmailMessage this handler uses. */
export interface InboundMessage {
  readonly to: string;
  readonly raw: ReadableStream<Uint8Array>;
  readonly rawSize: number;
  setReject(reason: string): void;
}

export const INBOUND_SOURCE = "email";

export async function receiveEmail(message: InboundMessage, services: Services): Promise<void> {
  const { maxBytes } = services.config.inboundEmail;
  if (message.rawSize > maxBytes) {
    message.setReject(`Message too large: ${message.rawSize} bytes; the limit is ${maxBytes} bytes`);
    return;
  }
  const owner = await ingestAddressOwner(services, message.to);
  if (!owner) {
    message.setReject("Unknown or revoked address");
    return;
  }
  const raw = await readBounded(message.raw, maxBytes, "cancel");
  if (!raw) {
    message.setReject(`Message too large: over ${maxBytes} bytes`);
    return;
  }
  const now = services.clock.now().toISOString();
  const event = await parseEmail(raw, { file: "inbound", position: message.to }, { fallbackDate: now });
  if (event.type !== "item") {
    message.setReject(
      event.type === "error" ? `Unreadable message: ${event.message}` : "Message not imported",
    );
    return;
  }
  const { links, ...item } = event.item;
  const parsed = itemInputSchema.safeParse({
    ...item,
    source: INBOUND_SOURCE,
    links: links?.map((l) => ({ source: INBOUND_SOURCE, ...l })),
  });
  if (!parsed.success) {
    message.setReject(`Message not accepted: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    return;
  }
  await ingestItems(services, owner, [parsed.data]);
}
