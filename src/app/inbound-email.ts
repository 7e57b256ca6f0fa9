/**
 * Mail to a private ingest address becomes its owner's `email` item: admitted first (a known, active
 * address of an active member, from an envelope sender its owner allowed), then parsed by the importers'
 * parser and stored through the same ingest operation as POST /items.
 *
 * The parser makes the item storable as for the importers (header text cleaned like the body, a Date outside
 * the stored years replaced by the arrival time as an unreadable one is, recipients past the item's cap kept
 * in metadata with their count). What the worker adds: the envelope sender and the receiving server's
 * SPF/DKIM/DMARC verdicts in `metadata.inbound`, with whether they verify the From. A message whose Message-ID is already stored with other content is stored beside it (the id with
 * `#` and the start of its fingerprint), never over it; the same message delivered again writes nothing.
 */
import {
  addressOf,
  authenticationResults,
  fromVerified,
  headerFields,
  type InboundMetadata,
} from "../domain/email-authentication";
import { senderAllowed, tokenOf } from "../domain/ingest-addresses";
import { itemInputSchema } from "../domain/item-schema";
import type { UpsertStatus } from "../domain/items";
import { sha256Hex } from "../domain/sha256";
import { parseSubjectKey } from "../domain/workspaces";
import { parseEmail } from "../import/email";
import { ingestItems } from "./items";
import type { Services } from "./services";

export const INBOUND_SOURCE = "email";

export type Refusal = { accepted: false; reason: string };
export type Admission = { accepted: true; owner: string } | Refusal;
export type Delivery = { accepted: true; externalId: string; status: UpsertStatus } | Refusal;

const refuse = (reason: string): Refusal => ({ accepted: false, reason });

/** Whether mail from `from` (the envelope sender) to `to` may be delivered, and to whom. */
export async function admitInboundEmail(
  services: Services,
  envelope: { from: string; to: string },
): Promise<Admission> {
  const token = tokenOf(envelope.to, services.config.inboundEmail.domain);
  const address = token ? await services.ingestAddresses.ownerOf(token) : null;
  if (!address) return refuse("Unknown or revoked address");
  const owner = parseSubjectKey(address.subjectKey);
  if ((await services.workspaces.admit(owner.workspace, owner.id)) === "removed") {
    return refuse("Unknown or revoked address: its owner is no longer a member of their workspace");
  }
  if (!senderAllowed(envelope.from, address.allowedSenders)) {
    return refuse(`Sender ${envelope.from || "<>"} is not allowed to send to this address`);
  }
  return { accepted: true, owner: address.subjectKey };
}

/** Parses and stores an admitted message as `owner`'s item; a refusal says why (the sender's bounce). */
export async function storeInboundEmail(
  services: Services,
  owner: string,
  envelope: { from: string; to: string },
  raw: Uint8Array,
): Promise<Delivery> {
  const now = services.clock.now();
  const event = await parseEmail(
    raw,
    { file: "inbound", position: envelope.to },
    { fallbackDate: now.toISOString() },
  );
  if (event.type !== "item") {
    return refuse(event.type === "error" ? `Unreadable message: ${event.message}` : "Message not imported");
  }
  const fields = headerFields(raw);
  const { links, ...item } = event.item;
  const allParticipants = [...(item.participants ?? []), ...moreParticipants(item.metadata)];
  const fingerprint = await sha256Hex(
    JSON.stringify([
      item.title ?? null,
      item.author ?? null,
      allParticipants,
      item.body,
      fields.find((f) => f.name === "date")?.value ?? null,
      item.metadata?.attachments ?? null,
    ]),
  );
  const placement = await placementOf(services, owner, item.externalId, fingerprint);
  if (placement === "delivered before") {
    return { accepted: true, externalId: item.externalId, status: "unchanged" };
  }
  const authentication = authenticationResults(fields);
  const inbound: InboundMetadata = {
    envelopeFrom: envelope.from,
    receivedAt: now.toISOString(),
    authentication,
    fromVerified: fromVerified(authentication, addressOf(item.author ?? undefined)),
    fingerprint,
    ...(placement.sameMessageIdAs ? { sameMessageIdAs: placement.sameMessageIdAs } : {}),
  };
  const threadLinks = [
    ...(links ?? []),
    ...(placement.sameMessageIdAs
      ? [{ externalId: placement.sameMessageIdAs, kind: "same_message_id" }]
      : []),
  ];
  const input = itemInputSchema.safeParse({
    ...item,
    externalId: placement.externalId,
    source: INBOUND_SOURCE,
    metadata: { ...item.metadata, inbound },
    links: threadLinks.slice(0, 200).map((l) => ({ source: INBOUND_SOURCE, ...l })),
  });
  if (!input.success) {
    const issue = input.error.issues[0];
    return refuse(`Message not accepted: ${issue ? `${issue.path.join(".")} ${issue.message}` : "invalid"}`);
  }
  const [outcome] = await ingestItems(services, owner, [input.data]);
  return { accepted: true, externalId: placement.externalId, status: outcome?.status ?? "unchanged" };
}

const VARIANT_CHARS = 16;
const MAX_EXTERNAL_ID = 500;

/**
 * Where a message goes: under its own externalId when nothing is stored there; nowhere when the same
 * message (same fingerprint) is already stored; beside a different message with the same Message-ID, as
 * `<id>#<fingerprint start>` (which is stored at most once, being named by its content).
 */
async function placementOf(
  services: Services,
  owner: string,
  externalId: string,
  fingerprint: string,
): Promise<{ externalId: string; sameMessageIdAs?: string } | "delivered before"> {
  const stored = await services.ingestAddresses.storedMessage(owner, INBOUND_SOURCE, externalId);
  if (!stored) return { externalId };
  if (stored.fingerprint === fingerprint) return "delivered before";
  const variant = `${externalId.slice(0, MAX_EXTERNAL_ID - VARIANT_CHARS - 1)}#${fingerprint.slice(0, VARIANT_CHARS)}`;
  if (await services.ingestAddresses.storedMessage(owner, INBOUND_SOURCE, variant)) return "delivered before";
  return { externalId: variant, sameMessageIdAs: externalId };
}

/** The recipients the parser kept in metadata past the participants cap. */
function moreParticipants(metadata: Record<string, unknown> | undefined): string[] {
  const more = metadata?.moreParticipants;
  return Array.isArray(more) ? more.filter((p): p is string => typeof p === "string") : [];
}
