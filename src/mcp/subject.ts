/**
 * Whose memory or items an MCP call acts on: the caller's own, or a team's when the call names one (as
 * over HTTP, only a member's: for anyone else "Team not found", whether it exists or not).
 */
import { z } from "zod";
import { teamSubject } from "../app/memory";
import { MAX_TEAM_ID_LENGTH, TEAM_PREFIX } from "../domain/workspaces";
import type { McpContext } from "./deps";

/** The optional `team` argument of the memory and search tools. */
export const teamArgument = z
  .string()
  .min(1)
  .max(TEAM_PREFIX.length + MAX_TEAM_ID_LENGTH)
  .optional()
  .describe(
    "A team the user belongs to (its id, e.g. payments, or team:payments): act on the team's shared memory " +
      "and the items shared with the team instead of the user's own",
  );

/** The subject key to act on; throws not_found (the tool error of HTTP's 404) for a team not the caller's. */
export function subjectOf({ services, caller }: McpContext, team: string | undefined): Promise<string> {
  if (team === undefined) return Promise.resolve(caller.subjectKey);
  const teamId = team.startsWith(TEAM_PREFIX) ? team.slice(TEAM_PREFIX.length) : team;
  return teamSubject(services, caller, teamId);
}
