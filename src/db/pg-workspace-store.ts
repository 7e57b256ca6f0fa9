/**
 * Members and teams in Postgres: the source of truth the access rule reads (team_members), so a change
 * takes effect on the next request. Every write that takes access away goes through writeWithRedaction.
 */
import { sql } from "drizzle-orm";
import { AppError } from "../domain/errors";
import type { AccessLoss, WorkspaceStore } from "../domain/workspace-store";
import { type Member, type Team, teamKey, userKey } from "../domain/workspaces";
import { writeWithRedaction } from "./access-loss";
import type { Db } from "./client";
import { toDate } from "./item-rows";
import { parseJson, parseTextArray } from "./sql-values";

export function createPgWorkspaceStore(db: Db): WorkspaceStore {
  const teamsWhere = async (where: ReturnType<typeof sql>): Promise<Team[]> => {
    const found = await db.execute(sql`
      select t.team_id, t.name, t.created_at, t.updated_at,
        coalesce((select json_agg(wm.user_id order by wm.user_id) from team_members tm
                  join workspace_members wm on wm.member_key = tm.member_key
                  where tm.team_key = t.team_key), '[]'::json) as members
      from teams t where ${where} order by t.team_id`);
    return found.rows.map((r) => ({
      id: String(r.team_id),
      name: String(r.name),
      members: (parseJson(r.members) as string[] | null) ?? [],
      createdAt: toDate(r.created_at as string),
      updatedAt: toDate(r.updated_at as string),
    }));
  };

  return {
    async admit(workspaceId, userId) {
      const key = userKey(workspaceId, userId);
      // One round trip: the insert registers a newcomer; the second branch reads an existing member (a
      // data-modifying CTE's rows are not visible to the same statement, so at most one branch answers).
      // No conflict target: the row is unique twice (member_key, and workspace_id with user_id), and two
      // first requests racing must both do nothing on either index rather than fail on the other one.
      const found = await db.execute(sql`
        with ins as (
          insert into workspace_members (member_key, workspace_id, user_id) values (${key}, ${workspaceId}, ${userId})
          on conflict do nothing returning removed_at)
        select removed_at from ins union all select removed_at from workspace_members where member_key = ${key}`);
      return found.rows[0]?.removed_at ? "removed" : "member";
    },

    async members(workspaceId) {
      const found = await db.execute(sql`
        select user_id, joined_at, removed_at, email from workspace_members
        where workspace_id = ${workspaceId} order by user_id`);
      return found.rows.map(
        (r): Member => ({
          userId: String(r.user_id),
          joinedAt: toDate(r.joined_at as string),
          removedAt: r.removed_at ? toDate(r.removed_at as string) : null,
          email: r.email === null || r.email === undefined ? null : String(r.email),
        }),
      );
    },

    async addMember(workspaceId, userId) {
      const found = await db.execute(sql`
        insert into workspace_members (member_key, workspace_id, user_id)
        values (${userKey(workspaceId, userId)}, ${workspaceId}, ${userId})
        on conflict (member_key) do update set removed_at = null where workspace_members.removed_at is not null
        returning member_key`);
      return found.rows.length > 0;
    },

    async removeMember(workspaceId, userId, at) {
      const key = userKey(workspaceId, userId);
      const found = await db.execute(sql`
        select removed_at, array(select team_key from team_members where member_key = ${key})::text as teams
        from workspace_members where member_key = ${key}`);
      const row = found.rows[0];
      if (!row) return null;
      const teams = parseTextArray(row.teams);
      const { redactedSubjects } = await writeWithRedaction(
        db,
        { removedPrincipals: [key], leftTeams: teams.map((team) => ({ team, member: key })) },
        { subjects: [key] },
        [
          db.execute(sql`
            update workspace_members set removed_at = coalesce(removed_at, ${at.toISOString()}::timestamptz)
            where member_key = ${key}`),
          db.execute(sql`delete from team_members where member_key = ${key}`),
          db.execute(sql`
            update items set shared_with = array_remove(shared_with, ${key}), updated_at = now()
            where shared_with @> array[${key}::text]`),
        ],
        at,
      );
      return { visibleTo: [key], redactedSubjects };
    },

    teams: (workspaceId, memberId) =>
      teamsWhere(
        memberId === undefined
          ? sql`t.workspace_id = ${workspaceId}`
          : sql`t.workspace_id = ${workspaceId} and exists (select 1 from team_members tm
              where tm.team_key = t.team_key and tm.member_key = ${userKey(workspaceId, memberId)})`,
      ),

    async team(workspaceId, teamId) {
      return (await teamsWhere(sql`t.team_key = ${teamKey(workspaceId, teamId)}`))[0] ?? null;
    },

    async putTeam(workspaceId, teamId, { name, members }, at) {
      const key = teamKey(workspaceId, teamId);
      const wanted = [...new Set(members)].sort();
      const found = await db.execute(sql`
        select
          coalesce((select json_agg(u) from unnest(${sql.param(wanted)}::text[]) u
            where not exists (select 1 from workspace_members wm
              where wm.workspace_id = ${workspaceId} and wm.user_id = u and wm.removed_at is null)), '[]'::json) as unknown,
          coalesce((select json_agg(member_key) from team_members where team_key = ${key}), '[]'::json) as current`);
      const unknown = (parseJson(found.rows[0]?.unknown) as string[] | null) ?? [];
      if (unknown.length > 0) {
        throw new AppError("validation_failed", "Some members are not members of this workspace", {
          details: { members: unknown.map((user) => ({ user, message: "not a member of this workspace" })) },
        });
      }
      const current = (parseJson(found.rows[0]?.current) as string[] | null) ?? [];
      const wantedKeys = wanted.map((u) => userKey(workspaceId, u));
      const dropped = current.filter((m) => !wantedKeys.includes(m));
      const added = wantedKeys.filter((m) => !current.includes(m));
      const { results, redactedSubjects } = await writeWithRedaction(
        db,
        { leftTeams: dropped.map((member) => ({ team: key, member })) },
        { subjects: dropped },
        [
          db.execute(sql`
            insert into teams (team_key, workspace_id, team_id, name, created_at, updated_at)
            values (${key}, ${workspaceId}, ${teamId}, ${name}, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz)
            on conflict (team_key) do update set name = excluded.name, updated_at = excluded.updated_at
            returning (xmax = 0) as created`),
          db.execute(sql`
            delete from team_members where team_key = ${key} and member_key <> all(${sql.param(wantedKeys)}::text[])`),
          db.execute(sql`
            insert into team_members (team_key, member_key)
            select ${key}, m from unnest(${sql.param(wantedKeys)}::text[]) m on conflict do nothing`),
        ],
        at,
      );
      const created = isTrue((results[0] as { rows: Record<string, unknown>[] }).rows[0]?.created);
      const team = await this.team(workspaceId, teamId);
      if (!team) throw new Error(`team ${teamId} vanished after its write`);
      return { team, created, loss: { visibleTo: [...added, ...dropped], redactedSubjects } };
    },

    async deleteTeam(workspaceId, teamId, at): Promise<AccessLoss | null> {
      const key = teamKey(workspaceId, teamId);
      const found = await db.execute(sql`
        select array(select member_key from team_members where team_key = ${key})::text as members
        from teams where team_key = ${key}`);
      const row = found.rows[0];
      if (!row) return null;
      const members = parseTextArray(row.members);
      const { redactedSubjects } = await writeWithRedaction(
        db,
        { removedPrincipals: [key] },
        { subjects: members },
        [
          db.execute(sql`delete from memory_versions where subject_id = ${key}`),
          db.execute(sql`delete from memory_runs where subject_id = ${key}`),
          db.execute(sql`delete from memories where subject_id = ${key}`),
          db.execute(sql`delete from memory_dismissals where subject_id = ${key}`),
          db.execute(sql`
            update items set shared_with = array_remove(shared_with, ${key}), updated_at = now()
            where shared_with @> array[${key}::text]`),
          db.execute(sql`delete from teams where team_key = ${key}`),
        ],
        at,
      );
      return { visibleTo: members, redactedSubjects };
    },

    async isTeamMember(workspaceId, teamId, userId) {
      const found = await db.execute(sql`
        select 1 from team_members
        where team_key = ${teamKey(workspaceId, teamId)} and member_key = ${userKey(workspaceId, userId)}`);
      return found.rows.length > 0;
    },
  };
}

/**
 * The share targets (keys) that name no active member and no team: sharing with them is refused, so no
 * text reaches a stranger and no run starts for a made-up subject.
 */
export async function unknownShareTargets(db: Db, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const found = await db.execute(sql`
    select coalesce(json_agg(k), '[]'::json) as unknown from unnest(${sql.param([...new Set(keys)])}::text[]) k
    where not exists (select 1 from workspace_members wm where wm.member_key = k and wm.removed_at is null)
      and not exists (select 1 from teams t where t.team_key = k)`);
  return (parseJson(found.rows[0]?.unknown) as string[] | null) ?? [];
}

const isTrue = (v: unknown): boolean => v === true || v === "t" || v === "true";
