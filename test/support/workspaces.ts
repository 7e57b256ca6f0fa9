/** Workspace membership for tests: sharing needs known members, as a real workspace's users would be. */
import { env } from "cloudflare:workers";
import { parseConfig } from "../../src/config/config";
import { createDb } from "../../src/db/client";
import { createPgWorkspaceStore } from "../../src/db/pg-workspace-store";
import { DEFAULT_WORKSPACE } from "../../src/domain/workspaces";

export const workspaceStore = () => createPgWorkspaceStore(createDb(parseConfig(env)));

/** Registers users as members (as their first API call would), in the default workspace unless named. */
export async function registerMembers(...userIds: string[]): Promise<void> {
  await registerMembersIn(DEFAULT_WORKSPACE, ...userIds);
}

export async function registerMembersIn(workspaceId: string, ...userIds: string[]): Promise<void> {
  const store = workspaceStore();
  for (const userId of userIds) await store.addMember(workspaceId, userId);
}
