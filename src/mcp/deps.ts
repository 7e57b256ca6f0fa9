/** What every tool, resource and prompt of one MCP server works with: the services and the caller it is bound to. */
import type { Caller } from "../app/caller";
import type { Services } from "../app/services";

export interface McpContext {
  services: Services;
  caller: Caller;
  requestId: string;
}
