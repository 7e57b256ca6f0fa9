/**
 * The memory operations, personal or team, the same over HTTP and MCP: whose memory a call acts on, the
 * read with every state, a refresh with its rate-limit answer, and the history.
 */
import { AppError, notFound } from "../domain/errors";
import { isUuid } from "../domain/memory";
import { isTeamId, teamKey } from "../domain/workspaces";
import type { ServedMemory } from "../memory/memory-cache";
import { readMemory } from "../memory/memory-read";
import type { Caller } from "./caller";
import type { Services } from "./services";

/**
 * The subject key of a team's memory, for a member of the team; not_found for anyone else (an admin who is
 * not a member too), as for a team that does not exist. `knownTeams` are the caller's teams when the
 * entry point already holds them (the cached admission), else the store is asked.
 */
export async function teamSubject(
  services: Pick<Services, "workspaces">,
  caller: Caller,
  teamId: string,
  knownTeams?: readonly string[] | null,
): Promise<string> {
  if (!isTeamId(teamId)) throw notFound("Team");
  const member = knownTeams
    ? knownTeams.includes(teamId)
    : await services.workspaces.isTeamMember(caller.workspaceId, teamId, caller.userId);
  if (!member) throw notFound("Team");
  return teamKey(caller.workspaceId, teamId);
}

/**
 * The subject's memory in whichever state it is (ready, stale, generating, empty, unavailable); a read of a
 * missing or stale memory asks its agent for a run. `cached`: the subject's cache entry, when the entry
 * point has just read it.
 */
export async function readSubjectMemory(
  services: Services,
  subjectKey: string,
  options: { waitSeconds?: number; cached?: ServedMemory | null } = {},
) {
  const event = services.audit.begin("memory.read", subjectKey);
  const decision = await readMemory(services, subjectKey, {
    waitMs: (options.waitSeconds ?? 0) * 1000,
    cached: options.cached,
  });
  if (decision.kind === "ready") event.version = decision.memory.id;
  return decision;
}

export type RefreshOutcome =
  | { status: "running"; runId: string }
  | { status: "scheduled"; runAt: string }
  | { status: "fresh" | "failing" | "erased" };

/** Asks for a run now: rate_limited inside the min interval or a backoff; unavailable without an LLM. */
export async function refreshMemory(services: Services, subjectKey: string): Promise<RefreshOutcome> {
  const answer = await services.memoryAgents.forceRefresh(subjectKey);
  switch (answer.status) {
    case "refused": {
      const seconds = Math.max(1, Math.ceil(answer.retryAfterMs / 1000));
      throw new AppError("rate_limited", `A refresh is not allowed yet; try again in ${duration(seconds)}.`, {
        retryAfterSeconds: seconds,
      });
    }
    case "unavailable":
      throw new AppError(answer.code, answer.message);
    case "running":
      return { status: "running", runId: answer.runId };
    case "scheduled":
      return { status: "scheduled", runAt: new Date(answer.runAt).toISOString() };
    default:
      return { status: answer.status };
  }
}

export interface PageRequest {
  limit: number;
  cursor?: string;
}

export async function memoryRuns(services: Services, subjectKey: string, page: PageRequest) {
  services.audit.begin("memory.runs.list", subjectKey);
  const { entries, nextCursor } = await services.memoryReader.runs(subjectKey, page);
  return { runs: entries, nextCursor };
}

export async function memoryVersions(services: Services, subjectKey: string, page: PageRequest) {
  services.audit.begin("memory.versions.list", subjectKey);
  const { entries, nextCursor } = await services.memoryReader.versions(subjectKey, page);
  return { versions: entries, nextCursor };
}

export async function memoryVersion(services: Services, subjectKey: string, id: string) {
  services.audit.begin("memory.version.read", subjectKey, { version: isUuid(id) ? id : null });
  const version = isUuid(id) ? await services.memoryReader.version(subjectKey, id) : null;
  if (!version) throw notFound("Memory version");
  return version;
}

/** "45 s", "60 min", "3 h 20 min": a wait as a person reads it. */
function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)} h${rest ? ` ${rest} min` : ""}`;
}
