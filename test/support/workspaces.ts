/** Workspace membership for tests: sharing needs known members, as a real workspace's users would be. */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { parseConfig } from "../../src/config/config";
import { createDb } from "../../src/db/client";
import { createPgWorkspaceStore } from "../../src/db/pg-workspace-store";
import { DEFAULT_WORKSPACE, userKey } from "../../src/domain/workspaces";

export const workspaceStore = () => createPgWorkspaceStore(createDb(parseConfig(env)));

/** Registers users as members (as their first API call would), in the default workspace. */
export async function registerMembers(...userIds: string[]): Promise<void> {
  await registerMembersIn(DEFAULT_WORKSPACE, ...userIds);
}

/** One insert for any number of users (a sharing test may need a thousand). */
export async function registerMembersIn(workspaceId: string, ...userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  const db = createDb(parseConfig(env));
  await db.execute(sql`
    insert into workspace_members (member_key, workspace_id, user_id)
    select k, ${workspaceId}, u from unnest(${sql.param(userIds.map((u) => userKey(workspaceId, u)))}::text[],
                                            ${sql.param(userIds)}::text[]) as m(k, u)
    on conflict (member_key) do update set removed_at = null`);
}
