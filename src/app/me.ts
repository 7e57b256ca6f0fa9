/** What a caller does to their own account: erase everything of theirs, and their private ingest address. */
import { notFound } from "../domain/errors";
import { newIngestToken, tokenOf } from "../domain/ingest-addresses";
import { eraseSubject } from "../memory/deletion";
import type { Caller } from "./caller";
import type { Services } from "./services";

/** Items, memory, versions, runs and the agent's state; a later read starts from nothing. */
export function eraseMe(services: Services, caller: Caller): Promise<void> {
  return eraseSubject(services, caller.subjectKey);
}

/** The caller's private inbound-email address, issued on first ask; `created` says whether it is new. */
export async function issueIngestAddress(services: Services, caller: Caller) {
  const { token, created } = await services.ingestAddresses.issue(caller.subjectKey, newIngestToken());
  return { address: `${token}@${services.config.inboundEmail.domain}`, created };
}

export async function revokeIngestAddress(services: Services, caller: Caller): Promise<void> {
  if (!(await services.ingestAddresses.revoke(caller.subjectKey))) throw notFound("Ingest address");
}

/** Whose active ingest address `recipient` is (their subject key); null for unknown or revoked ones. */
export async function ingestAddressOwner(services: Services, recipient: string): Promise<string | null> {
  const token = tokenOf(recipient, services.config.inboundEmail.domain);
  return token ? services.ingestAddresses.ownerOf(token) : null;
}
