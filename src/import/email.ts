/**
 * One RFC 5322 message → one `email` item (postal-mime does the MIME work, in Node and in Workers alike).
 * Mapping: subject → title; From → author; To/Cc → participants; Date (else the mbox separator date, else
 * the caller's fallback) → occurredAt; the text part (or the HTML part turned into text) → body;
 * attachments listed in metadata; Message-ID (else a hash of the raw bytes) → externalId;
 * In-Reply-To → a `reply` link, the other References → `thread` links. Header values go through
 * email-headers.ts (NULs removed, lengths and the participants cap kept, dates within years 1-9999).
 */
import PostalMime, { type Address, type Email } from "postal-mime";
import { type ItemPerson, identifier, MAX_ITEM_PEOPLE, MAX_PERSON_NAME } from "../domain/people/model";
import { sha256Hex } from "../domain/sha256";
import { boundParticipants, cleanHeaderText, headerDate, mailboxText } from "./email-headers";
import type { ImportEvent, ImportItem, RecordPosition } from "./records";
import { boundedText, htmlToText } from "./text";

/** Metadata lists stay far below the API's 10,000 values and 256 KB of metadata. */
const MAX_ATTACHMENTS_LISTED = 500;
const MAX_LABELS = 200;

export interface EmailOptions {
  /** Used when the message has no usable Date header (the mbox separator's date, a file's time). */
  fallbackDate?: string;
  /** Merged into the item's metadata (e.g. the mbox file's Gmail labels come from the headers anyway). */
  metadata?: Record<string, unknown>;
}

/** Parses one message; a message that cannot be read becomes an `error` event, never a throw. */
export async function parseEmail(
  raw: Uint8Array,
  at: RecordPosition,
  options: EmailOptions = {},
): Promise<ImportEvent> {
  let email: Email;
  try {
    email = await PostalMime.parse(raw, { attachmentEncoding: "arraybuffer" });
  } catch (error) {
    return { type: "error", message: `not a readable message: ${String(error)}`, at };
  }
  // A Date that does not parse, or one outside the years 1-9999, falls back alike.
  const occurredAt = headerDate(email.date) ?? headerDate(options.fallbackDate);
  if (!occurredAt) return { type: "error", message: "the message has no usable Date header", at };
  const item = await emailItem(email, raw, occurredAt, options.metadata);
  return { type: "item", item, at };
}

async function emailItem(
  email: Email,
  raw: Uint8Array,
  occurredAt: string,
  extra: Record<string, unknown> = {},
): Promise<ImportItem> {
  const messageId = bareId(email.messageId);
  const externalId = messageId ?? `sha256:${await sha256Hex(raw)}`;
  const rawBody = email.text?.trim() ? email.text : email.html ? htmlToText(email.html) : "";
  const body = boundedText(rawBody.trim());
  const author = formatAddresses(email.from ? [email.from] : [])[0];
  const { participants, overflow } = boundParticipants(
    formatAddresses([...(email.to ?? []), ...(email.cc ?? [])]),
  );
  const metadata: Record<string, unknown> = { ...extra };
  if (overflow) Object.assign(metadata, overflow);
  if (email.attachments.length > 0) {
    metadata.attachments = email.attachments.slice(0, MAX_ATTACHMENTS_LISTED).map((a) => ({
      name: cleanHeaderText(a.filename ?? undefined),
      type: cleanHeaderText(a.mimeType, 200),
      size: byteSize(a.content),
    }));
    if (email.attachments.length > MAX_ATTACHMENTS_LISTED)
      metadata.attachmentCount = email.attachments.length;
  }
  const labels = header(email, "x-gmail-labels");
  if (labels)
    metadata.gmailLabels = labels
      .split(",")
      .flatMap((l) => cleanHeaderText(l, 200) ?? [])
      .slice(0, MAX_LABELS);
  if (body.truncated) metadata.truncated = true;
  if (!messageId) metadata.messageIdMissing = true;

  const item: ImportItem = { externalId, kind: "email", body: body.text, occurredAt, participants };
  const people = mailPeople(email);
  if (people.length > 0) item.people = people;
  const title = cleanHeaderText(email.subject);
  if (title) item.title = title;
  if (author) item.author = author;
  if (Object.keys(metadata).length > 0) item.metadata = metadata;
  const links = threadLinks(email, externalId);
  if (links.length > 0) item.links = links;
  return item;
}

function threadLinks(email: Email, self: string): { externalId: string; kind: string }[] {
  const parent = bareId(email.inReplyTo?.split(/\s+/).find((id) => id.includes("@")));
  const references = (email.references ?? "").match(/<[^<>\s]+>/g)?.map((id) => bareId(id)!) ?? [];
  const links: { externalId: string; kind: string }[] = [];
  if (parent && parent !== self) links.push({ externalId: parent, kind: "reply" });
  for (const id of unique(references)) {
    if (id !== parent && id !== self) links.push({ externalId: id, kind: "thread" });
  }
  return links.slice(0, 200);
}

/** `<abc@host>` → `abc@host`; blank → undefined. */
function bareId(id: string | undefined): string | undefined {
  return cleanHeaderText(id?.trim().replace(/^<|>$/g, ""), 500);
}

/** `Name <address>`, or the bare address; group members flattened; NULs removed, within a participant's length. */
function formatAddresses(addresses: Address[]): string[] {
  return addresses.flatMap((a) =>
    a.group ? formatAddresses(a.group) : (mailboxText(a.name, a.address) ?? []),
  );
}

/** From as the author, To and Cc as participants: each mailbox's display name and address. */
function mailPeople(email: Email): ItemPerson[] {
  const flat = (addresses: Address[]): Address[] => addresses.flatMap((a) => (a.group ? flat(a.group) : [a]));
  const out: ItemPerson[] = [];
  const seen = new Set<string>();
  const add = (role: ItemPerson["role"], a: Address) => {
    const address = cleanHeaderText(a.address)?.toLowerCase();
    const name = cleanHeaderText(a.name, MAX_PERSON_NAME);
    // An address that is not one (`user@localhost`, `undisclosed-recipients:`) stays a participant string only.
    if (!address || !identifier("email", address) || seen.has(address) || out.length >= MAX_ITEM_PEOPLE)
      return;
    seen.add(address);
    out.push({ role, email: address, ...(name && name.toLowerCase() !== address ? { name } : {}) });
  };
  for (const a of flat(email.from ? [email.from] : [])) add("author", a);
  for (const a of flat([...(email.to ?? []), ...(email.cc ?? [])])) add("participant", a);
  return out;
}

function header(email: Email, key: string): string | undefined {
  return email.headers.find((h) => h.key === key)?.value;
}

function byteSize(content: ArrayBuffer | Uint8Array | string): number {
  return typeof content === "string" ? content.length : content.byteLength;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
