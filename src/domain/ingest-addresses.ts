/** Private inbound-email addresses: one active address per user, revocable; the port and the token scheme. */

/** The store of addresses. */
export interface IngestAddresses {
  /** The owner's active token, issuing `candidate` when there is none; `created` says which happened. */
  issue(subjectKey: string, candidate: string): Promise<{ token: string; created: boolean }>;
  /** Revokes the owner's active address; false when there was none. */
  revoke(subjectKey: string): Promise<boolean>;
  /** Who an active token belongs to; null for unknown or revoked tokens. */
  ownerOf(token: string): Promise<string | null>;
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
