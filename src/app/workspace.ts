/**
 * The workspace's members and teams. Admins manage both (the entry points admit only admin tokens to the
 * changes); a member sees the teams they belong to. Every change that ends someone's access redacts their
 * memories in the same write (memory/workspace-changes.ts).
 */
import { AppError, notFound } from "../domain/errors";
import { isTeamId, nameProblem, type Team, teamKey, userKey } from "../domain/workspaces";
import { deleteTeam as deleteTeamWithRedaction, putTeam, removeMember } from "../memory/workspace-changes";
import { type Caller, hasScope } from "./caller";
import type { Services } from "./services";

function userIdOf(value: string): string {
  const problem = nameProblem(value, "user");
  if (problem) throw new AppError("bad_request", `"${value}" is not a valid user id: it ${problem}`);
  return value;
}

export function listMembers(services: Services, caller: Caller) {
  return services.workspaces.members(caller.workspaceId);
}

/** Adds the user, or adds back a removed one; `added` is false when they already were a member. */
export async function addMember(services: Services, caller: Caller, user: string, email?: string | null) {
  const event = services.audit.begin("member.add", caller.subjectKey);
  const userId = userIdOf(user);
  event.subjectKey = userKey(caller.workspaceId, userId);
  const added = await services.workspaces.addMember(caller.workspaceId, userId);
  if (email !== undefined) await services.people.setMemberEmail(event.subjectKey, email);
  const member = (await services.workspaces.members(caller.workspaceId)).find((m) => m.userId === userId);
  if (!member) throw new Error(`member ${userId} vanished after being added`);
  return { member, added };
}

export async function removeWorkspaceMember(services: Services, caller: Caller, user: string) {
  const event = services.audit.begin("member.remove", caller.subjectKey);
  const userId = userIdOf(user);
  event.subjectKey = userKey(caller.workspaceId, userId);
  if (userId === caller.userId) {
    throw new AppError("bad_request", "An admin cannot remove themselves; ask another admin");
  }
  if (!(await removeMember(services, caller.workspaceId, userId))) throw notFound("Member");
}

/** An admin sees every team of the workspace; anyone else the teams they belong to. */
export function listTeams(services: Pick<Services, "workspaces">, caller: Caller): Promise<Team[]> {
  return hasScope(caller, "admin")
    ? services.workspaces.teams(caller.workspaceId)
    : teamsOf(services, caller);
}

/** The teams the caller belongs to (an admin's too: only members read a team's memory). */
export function teamsOf(services: Pick<Services, "workspaces">, caller: Caller): Promise<Team[]> {
  return services.workspaces.teams(caller.workspaceId, caller.userId);
}

/** The team, if the caller may see it: an admin always, anyone else only as a member; else not_found. */
export async function visibleTeam(services: Services, caller: Caller, teamId: string): Promise<Team> {
  const team = isTeamId(teamId) ? await services.workspaces.team(caller.workspaceId, teamId) : null;
  if (!team || (!hasScope(caller, "admin") && !team.members.includes(caller.userId))) throw notFound("Team");
  return team;
}

/** Creates or replaces the team (`created` says which); members dropped from it lose access at once. */
export function replaceTeam(
  services: Services,
  caller: Caller,
  teamId: string,
  team: { name: string; members: string[] },
) {
  services.audit.begin(
    "team.change",
    isTeamId(teamId) ? teamKey(caller.workspaceId, teamId) : caller.subjectKey,
  );
  if (!isTeamId(teamId)) {
    throw new AppError(
      "bad_request",
      "A team id is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
    );
  }
  return putTeam(services, caller.workspaceId, teamId, team);
}

/** Deletes the team with its memory, versions, runs and agent; not_found if there is none. */
export async function deleteTeam(services: Services, caller: Caller, teamId: string) {
  services.audit.begin(
    "team.change",
    isTeamId(teamId) ? teamKey(caller.workspaceId, teamId) : caller.subjectKey,
  );
  if (!isTeamId(teamId) || !(await deleteTeamWithRedaction(services, caller.workspaceId, teamId))) {
    throw notFound("Team");
  }
}
