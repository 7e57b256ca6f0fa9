/**
 * Private inbound-email addresses: one active address per user, revocable, accepting mail only from the
 * envelope senders its owner allowed. The port, the token scheme and the sender rule.
 */

import { textProblem } from "./safe-text";

/** An active address as the store holds it. */
export interface IngestAddress {
  token: string;
  /** Lower-case envelope senders it accepts: `ada@example.com` or `@example.com`; empty accepts none. */
  allowedSenders: string[];
}

/** A stored inbound message, as far as telling a re-delivery from another message with its id goes. */
export interface StoredMessage {
  /** The fingerprint of its content (inbound-email.ts), or null for an item that has none. */
  fingerprint: string | null;
}

/** The store of addresses, and of what inbound mail needs to know about the messages already stored. */
export interface IngestAddresses {
  /**
   * The owner's active address, issuing `candidate` with `allowedSenders` when there is none; on an
   * existing one, `replaceSenders` (when given) becomes its list. `created` says whether it is new.
   */
  issue(
    subjectKey: string,
    candidate: { token: string; allowedSenders: string[] },
    replaceSenders?: string[],
  ): Promise<IngestAddress & { created: boolean }>;
  /** Revokes the owner's active address; false when there was none. */
  revoke(subjectKey: string): Promise<boolean>;
  /** Who an active token belongs to and whom it accepts mail from; null for unknown or revoked tokens. */
  ownerOf(token: string): Promise<{ subjectKey: string; allowedSenders: string[] } | null>;
  /** The owner's stored item of this source and externalId, if any. */
  storedMessage(subjectKey: string, source: string, externalId: string): Promise<StoredMessage | null>;
}

/** Ingest address tokens: 26 random base32 characters, the local part of `<token>@<domain>`. */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

export function newIngestToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(26));
  return Array.from(bytes, (b) => ALPHABET[b & 31]).join("");
}

/** The token in an envelope recipient (`token@domain` or `token+anything@domain`), or null. */
export function tokenOf(recipient: string, domain: string): string | null {
  const match = /^([a-z2-7]{26})(?:\+[^@]*)?@(.+)$/i.exec(recipient.trim());
  if (!match || match[2]!.toLowerCase() !== domain.toLowerCase()) return null;
  return match[1]!.toLowerCase();
}

export const MAX_ALLOWED_SENDERS = 100;
const MAX_SENDER_LENGTH = 254;
/** An address `local@domain` (no spaces, no angle brackets), or a domain `@example.com`. */
const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
const DOMAIN = /^@[^\s@<>]+\.[^\s@<>]+$/;

/** What is wrong with an allowed-sender entry (nothing is trimmed), or null. */
export function allowedSenderProblem(entry: string): string | null {
  const text = textProblem(entry);
  if (text) return text;
  if (entry.trim() !== entry) return "must not start or end with whitespace";
  if (entry.length > MAX_SENDER_LENGTH) return `must be at most ${MAX_SENDER_LENGTH} characters`;
  if (!ADDRESS.test(entry) && !DOMAIN.test(entry)) {
    return "must be an address (ada@example.com) or a domain (@example.com)";
  }
  return null;
}

/** The list as stored: lower case, each entry once, in order. */
export const normalizeSenders = (entries: string[]): string[] => [
  ...new Set(entries.map((e) => e.toLowerCase())),
];

/**
 * Whether the envelope sender (MAIL FROM) may use an address that accepts `allowed`: the address itself
 * is listed, or its domain is (`@example.com` accepts that domain, not its subdomains). Compared without
 * case; an empty sender (a bounce) is never allowed.
 */
export function senderAllowed(envelopeFrom: string, allowed: readonly string[]): boolean {
  const sender = envelopeFrom.replace(/^<|>$/g, "").toLowerCase();
  const at = sender.lastIndexOf("@");
  if (at <= 0) return false;
  return allowed.includes(sender) || allowed.includes(sender.slice(at));
}

/** The token's `email` claim as an allowed sender, when it is a usable address (else none). */
export function defaultSenders(tokenEmail: string | undefined): string[] {
  return tokenEmail !== undefined && ADDRESS.test(tokenEmail) && tokenEmail.length <= MAX_SENDER_LENGTH
    ? [tokenEmail.toLowerCase()]
    : [];
}
