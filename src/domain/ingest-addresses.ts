/** The port for private inbound-email addresses: one active address per user, revocable. */
export interface IngestAddresses {
  /** The owner's active token, issuing `candidate` when there is none; `created` says which happened. */
  issue(subjectKey: string, candidate: string): Promise<{ token: string; created: boolean }>;
  /** Revokes the owner's active address; false when there was none. */
  revoke(subjectKey: string): Promise<boolean>;
  /** Who an active token belongs to; null for unknown or revoked tokens. */
  ownerOf(token: string): Promise<string | null>;
}
