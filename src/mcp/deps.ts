/** What every tool, resource and prompt of one MCP server works with: the services and the caller it is bound to. */
import type { Caller } from "../app/caller";
import type { Services } from "../app/services";

export interface McpContext {
  services: Services;
  caller: Caller;
  requestId: string;
  /** The request's User-Agent header, for the audit's client when the MCP client did not name itself. */
  userAgent: string | null;
  /** The client an older-era client's verified session id names (its initialize's clientInfo), or null. */
  sessionClient?: { name: string; version: string } | null;
  /**
   * Finishes the audit events the call began, with the status HTTP would have answered (200, or its
   * error's); set by the server once it exists (the client's name comes from its initialize).
   */
  finishAudit(status: number): void;
}
