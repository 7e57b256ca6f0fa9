/** What a caller does to their own account: erase everything of theirs, and their private ingest address. */
import { AppError, notFound } from "../domain/errors";
import {
  allowedSenderProblem,
  defaultSenders,
  MAX_ALLOWED_SENDERS,
  newIngestToken,
  normalizeSenders,
} from "../domain/ingest-addresses";
import { eraseSubject } from "../memory/deletion";
import { erasedNames } from "./audit";
import type { Caller } from "./caller";
import type { Services } from "./services";

/**
 * Items, memory, versions, runs, the agent's state and the caller's place in the workspace (membership,
 * teams, shares); a later request with the same token starts from nothing, as a newcomer.
 */
export async function eraseMe(services: Services, caller: Caller): Promise<void> {
  const event = services.audit.begin("me.erase", caller.subjectKey);
  event.names = await erasedNames(caller);
  await eraseSubject(services, caller.subjectKey);
  // The audit trail keeps its events, with the caller's name replaced by a one-way hash.
  await services.auditStore.eraseUser(caller.workspaceId, caller.userId, services.clock.now());
}

/**
 * The caller's private inbound-email address, issued on first ask; `created` says whether it is new.
 * `allowedSenders` (addresses or `@domain`s), when given, becomes the address's list of envelope senders
 * whose mail it accepts, on a new address or an existing one. A new address without one accepts only the
 * token's `email` claim, when the token has one, and no sender otherwise. The answer carries the list.
 */
export async function issueIngestAddress(services: Services, caller: Caller, allowedSenders?: string[]) {
  const given = allowedSenders === undefined ? undefined : validSenders(allowedSenders);
  const issued = await services.ingestAddresses.issue(
    caller.subjectKey,
    { token: newIngestToken(), allowedSenders: given ?? defaultSenders(caller.email) },
    given,
  );
  return {
    address: `${issued.token}@${services.config.inboundEmail.domain}`,
    allowedSenders: issued.allowedSenders,
    created: issued.created,
  };
}

function validSenders(entries: string[]): string[] {
  if (entries.length > MAX_ALLOWED_SENDERS) {
    throw new AppError("validation_failed", `At most ${MAX_ALLOWED_SENDERS} allowed senders`);
  }
  const problems = entries.flatMap((entry, index) => {
    const problem = allowedSenderProblem(entry);
    // Quoted as JSON: a NUL or a lone surrogate is named by its escape, never sent raw.
    const quoted = JSON.stringify(entry);
    return problem ? [{ index, path: `allowedSenders.${index}`, message: `${quoted} ${problem}` }] : [];
  });
  if (problems.length > 0) {
    throw new AppError("validation_failed", `${problems.length} allowed sender(s) are invalid`, {
      details: { problems },
    });
  }
  return normalizeSenders(entries);
}

export async function revokeIngestAddress(services: Services, caller: Caller): Promise<void> {
  if (!(await services.ingestAddresses.revoke(caller.subjectKey))) throw notFound("Ingest address");
}
