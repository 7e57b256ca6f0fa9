/** What the MCP server needs: the same ports the HTTP routes use, and the caller it is bound to. */
import type { Config } from "../config/config";
import type { ItemStore } from "../domain/items";
import type { WorkspaceStore } from "../domain/workspace-store";
import type { Caller } from "../http/context";
import type { DeletionDeps } from "../memory/deletion";
import type { MemoryReadDeps } from "../memory/memory-read";

export interface McpDeps extends DeletionDeps, Omit<MemoryReadDeps, "memoryAgents"> {
  config: Config;
  items: ItemStore;
  /** Team membership, for the tools' optional team and the team memory resources. */
  workspaces: Pick<WorkspaceStore, "isTeamMember" | "teams">;
}

export interface McpContext {
  deps: McpDeps;
  caller: Caller;
}
