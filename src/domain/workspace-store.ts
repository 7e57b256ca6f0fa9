/** The workspace store port: members and teams of a workspace (Postgres in db/pg-workspace-store.ts). */
import type { Member, Team } from "./workspaces";

/** What a change of access did: whose material changed, whose memory versions were redacted. */
export interface AccessLoss {
  /** Subjects whose view of the workspace changed (their material changed). */
  visibleTo: string[];
  /** Subjects whose memory versions were redacted. */
  redactedSubjects: string[];
}

export interface TeamWrite {
  team: Team;
  created: boolean;
  /** Members dropped by this write lose what is shared with the team. */
  loss: AccessLoss;
}

export interface WorkspaceStore {
  /** Registers the user the first time they are seen; "removed" while an admin has removed them. */
  admit(workspaceId: string, userId: string): Promise<"member" | "removed">;
  members(workspaceId: string): Promise<Member[]>;
  /** Adds the user (or adds a removed member back); true if they were not an active member. */
  addMember(workspaceId: string, userId: string): Promise<boolean>;
  /**
   * Removes the member: their token is refused, they leave every team and every share of the workspace,
   * and their memory versions citing what they can no longer see are redacted. Null if not a member.
   */
  removeMember(workspaceId: string, userId: string, at: Date): Promise<AccessLoss | null>;
  /** The workspace's teams, or only those `memberId` belongs to. */
  teams(workspaceId: string, memberId?: string): Promise<Team[]>;
  team(workspaceId: string, teamId: string): Promise<Team | null>;
  /** Creates or replaces a team (name and members); members must be active members (422 otherwise). */
  putTeam(
    workspaceId: string,
    teamId: string,
    team: { name: string; members: string[] },
    at: Date,
  ): Promise<TeamWrite>;
  /**
   * Deletes the team: its members lose what was shared with it (redacted at once), shares name it no more,
   * and its own memory, versions and runs are erased. Null if there is no such team.
   */
  deleteTeam(workspaceId: string, teamId: string, at: Date): Promise<AccessLoss | null>;
  isTeamMember(workspaceId: string, teamId: string, userId: string): Promise<boolean>;
}
