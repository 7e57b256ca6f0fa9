/**
 * Membership changes that reach derived data: the store applies each with its redactions in one atomic
 * write (the access-loss invariant), then the memory side is told, as for a deleted item: material changed
 * for everyone whose view changed, and the redacted subjects' agents are asked for a fresh memory. A deleted
 * team's agent goes first, as in an erase, so no run of it writes after the team is gone. The cached
 * admissions (memory/cached-membership.ts) of every member whose workspace or teams changed are removed with
 * the redacted memories, before the request returns.
 */
import type { WorkspaceStore } from "../domain/workspace-store";
import { teamKey, userKey } from "../domain/workspaces";
import { afterRemoval, type DeletionDeps } from "./deletion";

export interface WorkspaceChangeDeps extends Omit<DeletionDeps, "erasure"> {
  workspaces: WorkspaceStore;
}

export async function putTeam(
  deps: WorkspaceChangeDeps,
  workspaceId: string,
  teamId: string,
  team: { name: string; members: string[] },
) {
  const written = await deps.workspaces.putTeam(workspaceId, teamId, team, deps.clock.now());
  // visibleTo: the members added and dropped; their cached teams changed.
  await afterRemoval(deps, written.loss, null, written.loss.visibleTo);
  return written;
}

/** False if there is no such team. */
export async function deleteTeam(
  deps: WorkspaceChangeDeps,
  workspaceId: string,
  teamId: string,
): Promise<boolean> {
  if (!(await deps.workspaces.team(workspaceId, teamId))) return false;
  const key = teamKey(workspaceId, teamId);
  const erasedAt = deps.clock.now();
  await deps.memoryAgents.forget(key, erasedAt.getTime());
  const loss = await deps.workspaces.deleteTeam(workspaceId, teamId, erasedAt);
  // visibleTo: the team's members, who are no longer in it.
  if (loss) await afterRemoval(deps, loss, key, loss.visibleTo);
  return loss !== null;
}

/** False if the user was never a member. */
export async function removeMember(
  deps: WorkspaceChangeDeps,
  workspaceId: string,
  userId: string,
): Promise<boolean> {
  const loss = await deps.workspaces.removeMember(workspaceId, userId, deps.clock.now());
  if (loss) await afterRemoval(deps, loss, null, [userKey(workspaceId, userId)]);
  return loss !== null;
}
