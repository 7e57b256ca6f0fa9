/** unified-memory-client: the HTTP API of unified-memory, typed from its OpenAPI document. */
export type {
  AuditApi,
  AuditFilter,
  AuditOptions,
  MyAuditOptions,
  UsageApi,
  UsageOptions,
  WorkspaceUsageOptions,
} from "./audit.js";
export { MAX_BATCH_BYTES, MAX_BATCH_ITEMS } from "./batches.js";
export { UnifiedMemory } from "./client.js";
export { type ErrorCode, UnifiedMemoryError } from "./errors.js";
export type { components, operations, paths } from "./generated/openapi.js";
export { API_VERSION } from "./generated/openapi.js";
export { OPERATIONS, type OperationId } from "./generated/operations.js";
export type { ImportsApi, UploadOptions, WaitOptions } from "./imports.js";
export type { ItemProblem, SearchOptions, UpsertItemResult, UpsertOptions, UpsertResult } from "./items.js";
export type { GetMemoryOptions, MemoryApi, MemoryResult, PageOptions } from "./memory.js";
export type { Paginator } from "./pages.js";
export type { PeopleApi } from "./people.js";
export type { ClientOptions, FetchLike } from "./transport.js";
export type * from "./types.js";
export type { WebhooksApi } from "./webhooks.js";
export type { MeApi, MembersApi, TeamsApi } from "./workspace.js";
