/**
 * One RFC 5322 message → one `email` item (postal-mime does the MIME work, in Node and in Workers alike).
 * Mapping: subject → title; From → author; To/Cc → participants; Date (else the mbox separator date, else
 * the caller's fallback) → occurredAt; the text part (or the HTML part turned into text) → body;
 * attachments listed in metadata; Message-ID (else a hash of the raw bytes) → externalId;
 * In-Reply-To → a `reply` link, the other References → `thread` links.
 */
import PostalMime, { type Address, type Email } from "postal-mime";
import type { ImportEvent, ImportItem, RecordPosition } from "./records";
import { boundedText, htmlToText, sha256Hex } from "./text";

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
  const occurredAt = isoDate(email.date) ?? isoDate(options.fallbackDate);
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
  const participants = unique(formatAddresses([...(email.to ?? []), ...(email.cc ?? [])]));
  const metadata: Record<string, unknown> = { ...extra };
  if (email.attachments.length > 0) {
    metadata.attachments = email.attachments.map((a) => ({
      name: a.filename ?? undefined,
      type: a.mimeType,
      size: byteSize(a.content),
    }));
  }
  const labels = header(email, "x-gmail-labels");
  if (labels)
    metadata.gmailLabels = labels
      .split(",")
      .map((l) => l.trim())
      .filter(Boolean);
  if (body.truncated) metadata.truncated = true;
  if (!messageId) metadata.messageIdMissing = true;

  const item: ImportItem = { externalId, kind: "email", body: body.text, occurredAt, participants };
  const title = email.subject?.trim();
  if (title) item.title = title.slice(0, 1000);
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
  const bare = id?.trim().replace(/^<|>$/g, "").trim();
  return bare ? bare.slice(0, 500) : undefined;
}

/** `Name <address>`, or the bare address; group members flattened. */
function formatAddresses(addresses: Address[]): string[] {
  return addresses
    .flatMap((a) => (a.group ? formatAddresses(a.group) : [mailbox(a.name, a.address)]))
    .filter(Boolean);
}

function mailbox(name: string, address: string): string {
  const n = name.trim();
  const addr = address.trim();
  if (!addr) return n;
  return n && n !== addr ? `${n} <${addr}>` : addr;
}

function header(email: Email, key: string): string | undefined {
  return email.headers.find((h) => h.key === key)?.value;
}

function byteSize(content: ArrayBuffer | Uint8Array | string): number {
  return typeof content === "string" ? content.length : content.byteLength;
}

function isoDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
