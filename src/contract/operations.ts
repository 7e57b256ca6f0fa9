/**
 * The operation table: every HTTP operation of the API, declared once (see operation.ts for what an entry
 * holds). The routes, /openapi.json, the MCP tools that mirror an operation and both clients' operation
 * tables are derived from OPERATIONS; docs/contract.md shows how to add one.
 */
import { z } from "zod";
import { itemInputSchema, MAX_BODY_BYTES, MAX_ITEMS_PER_REQUEST } from "../domain/item-schema";
import * as res from "./answers";
import { memoryOperations } from "./memory-operations";
import { type Answer, type Operation, operation } from "./operation";
import {
  auditQuery,
  idParams,
  ingestAddressBodySchema,
  myAuditQuery,
  searchQuery,
  TEAM_PARAM_DOC,
  teamBodySchema,
  teamParams,
  USER_PARAM_DOC,
  usageQuery,
  userParams,
  workspaceUsageQuery,
} from "./requests";

const refusal = (description: string): Answer => ({ description, schema: res.errorBody });
const REMOVED = "the token's user was removed from the workspace (until an admin adds them back)";
const MAX_TEAM_BODY_BYTES = 256 * 1024;
const MAX_INGEST_ADDRESS_BODY_BYTES = 64 * 1024;

/** POST /items's item, with what sharedWith may name. */
const itemRequest = itemInputSchema.extend({
  sharedWith: itemInputSchema.shape.sharedWith.describe(
    "Members (`ada`) or teams (`team:payments`) of the caller's workspace who may see the item; a target " +
      "the workspace does not know makes the request 422 and nothing is written",
  ),
});

const auditDocs = {
  actor: "Only events of this actor (a user id, or erased:<hash>)",
  subject: "Only events about this subject (`ada`, `team:payments`)",
  action: "Only this action",
  since: "Only events at or after this instant (ISO 8601)",
  until: "Only events before this instant",
  limit: "Events a page",
  cursor: "nextCursor of the previous page",
  format: "ndjson: one event a line, all pages",
};
const usageDocs = {
  since: "First day (UTC), default 29 days before until",
  until: "Last day (UTC, inclusive), default today; at most 366 days in all",
  sort: "Order of the subjects",
};

export const health = operation({
  id: "health",
  method: "GET",
  path: "/health",
  access: "public",
  summary: "Whether the service and its database answer",
  answers: {
    200: { description: "Healthy", schema: res.healthResponse },
    503: { description: "Degraded", schema: res.healthResponse },
  },
});

export const openapi = operation({
  id: "openapi",
  method: "GET",
  path: "/openapi.json",
  access: "public",
  summary: "This document",
  answers: { 200: { description: "The OpenAPI 3.1 document", content: { "application/json": null } } },
});

export const protectedResourceMetadata = operation({
  id: "protectedResourceMetadata",
  method: "GET",
  path: "/.well-known/oauth-protected-resource",
  access: "public",
  summary: "RFC 9728 metadata of the API (JWKS mode only)",
  answers: {
    200: { description: "Where to get tokens", schema: res.protectedResourceResponse },
    404: refusal("No authorization server is configured"),
  },
});

export const mcpProtectedResourceMetadata = operation({
  id: "mcpProtectedResourceMetadata",
  method: "GET",
  path: "/.well-known/oauth-protected-resource/mcp",
  access: "public",
  summary: "RFC 9728 metadata of the MCP endpoint (JWKS mode only)",
  answers: {
    200: { description: "Where to get tokens", schema: res.protectedResourceResponse },
    404: refusal("No authorization server is configured"),
  },
});

export const ingestItems = operation({
  id: "ingestItems",
  method: "POST",
  path: "/items",
  access: "items:write",
  summary: `Upsert up to ${MAX_ITEMS_PER_REQUEST} items (5 MB), all or nothing`,
  body: {
    schema: z.object({ items: z.array(itemInputSchema).max(MAX_ITEMS_PER_REQUEST) }),
    documented: z.object({ items: z.array(itemRequest).max(MAX_ITEMS_PER_REQUEST) }),
    required: true,
    maxBytes: MAX_BODY_BYTES,
  },
  answers: {
    200: {
      description: "Each item's id and whether it was created, updated or unchanged",
      schema: res.ingestResponse,
    },
    400: refusal("The body is not { items: [...] } JSON"),
    413: refusal("Too many items or too many bytes"),
    415: refusal("The body is not JSON"),
    422: refusal(
      "Invalid items, or a sharedWith target that is not a member or team of the caller's workspace " +
        "(nothing is written); details.items lists { index, path, message }",
    ),
  },
});

export const searchItems = operation({
  id: "searchItems",
  method: "GET",
  path: "/items",
  access: "memory:read",
  summary: "Search what the caller may see (owned, shared with them, or shared with a team of theirs)",
  query: searchQuery,
  lists: ["kind", "people"],
  docs: {
    q: "What to look for; ranked when present, newest first otherwise",
    mode:
      "How q is matched: hybrid (keyword and semantic fused by reciprocal rank; the default with an " +
      "embedding model), keyword (every word or a hyphen/compound variant of it, then any word; the " +
      "default without one) or semantic (by meaning; 400 semantic_search_unavailable without an " +
      "embedding model). Every filter applies in every mode",
    kind: "Item kinds (repeat or comma-separate)",
    since: "Occurred at or after (date or date-time)",
    until: "Occurred before (date or date-time)",
    people: "Author or participant names",
    limit: "Page size",
    cursor: "nextCursor of the previous page",
  },
  answers: {
    200: { description: "One page of results", schema: res.searchResponse },
    400: refusal("Bad parameter, or mode=semantic without an embedding model"),
    503: refusal("mode=semantic and the embedding model is not answering (embedding_unavailable)"),
  },
  audit: ["items.search"],
});

export const getItem = operation({
  id: "getItem",
  method: "GET",
  path: "/items/{id}",
  access: "memory:read",
  summary: "One item with its links both ways",
  params: idParams,
  docs: { id: "Item id" },
  answers: {
    200: { description: "The item", schema: res.itemResponse },
    404: refusal("No such item visible to the caller"),
  },
  audit: ["item.read"],
});

export const deleteItem = operation({
  id: "deleteItem",
  method: "DELETE",
  path: "/items/{id}",
  access: "items:write",
  summary: "Delete an owned item, or leave an item shared with the caller",
  description:
    "The owner deletes the item; a member it is shared with directly is removed from the share (the item " +
    "stays for everyone else). Either way, every memory version that can no longer see the item is " +
    "redacted at once. An item the caller sees only through a team is left by leaving the team.",
  params: idParams,
  docs: { id: "Item id" },
  answers: {
    204: { description: "Deleted (owner) or left (direct sharee)" },
    403: refusal(
      `The caller sees the item only through a team, the token lacks the items:write scope, or ${REMOVED}`,
    ),
    404: refusal("No such item visible to the caller"),
  },
  audit: ["item.delete", "item.unshare"],
});

export const ownMemory = memoryOperations(false);
export const teamMemory = memoryOperations(true);

export const listMembers = operation({
  id: "listMembers",
  method: "GET",
  path: "/members",
  access: "admin",
  summary: "The members of the caller's workspace, removed ones included",
  answers: { 200: { description: "The members", schema: res.membersResponse } },
});

export const addMember = operation({
  id: "addMember",
  method: "PUT",
  path: "/members/{user}",
  access: "admin",
  summary: "Add a user to the workspace, or add a removed member back",
  params: userParams,
  docs: { user: USER_PARAM_DOC },
  answers: {
    200: { description: "Already an active member", schema: res.memberResponse },
    201: { description: "Added (or added back)", schema: res.memberResponse },
    400: refusal("Not a valid user id"),
  },
  audit: ["member.add"],
});

export const removeMember = operation({
  id: "removeMember",
  method: "DELETE",
  path: "/members/{user}",
  access: "admin",
  summary: "Remove a member: erases nothing of theirs, but ends their access at once",
  description:
    "The member leaves every team and every share of the workspace; their memory versions that cite what " +
    "they can no longer see are redacted in the same write; their token is refused with 403 until an " +
    "admin adds them back with PUT.",
  params: userParams,
  docs: { user: USER_PARAM_DOC },
  answers: {
    204: { description: "Removed" },
    400: refusal("An admin cannot remove themselves"),
    404: refusal("No such member in the workspace"),
  },
  audit: ["member.remove"],
});

export const listTeams = operation({
  id: "listTeams",
  method: "GET",
  path: "/teams",
  access: "token",
  summary: "Teams of the caller's workspace: all of them for an admin, the caller's own otherwise",
  answers: { 200: { description: "The teams", schema: res.teamsResponse } },
});

export const getTeam = operation({
  id: "getTeam",
  method: "GET",
  path: "/teams/{team}",
  access: "token",
  summary: "One team (admins, and the team's members)",
  params: teamParams,
  docs: { team: TEAM_PARAM_DOC },
  answers: {
    200: { description: "The team", schema: res.teamResponse },
    404: refusal("No such team, or the caller is neither an admin nor a member of it"),
  },
});

export const putTeam = operation({
  id: "putTeam",
  method: "PUT",
  path: "/teams/{team}",
  access: "admin",
  summary: "Create a team, or replace its name and members",
  description:
    "Members must be active members of the workspace. Members dropped by a replacement lose what is " +
    "shared with the team at once: their memory versions citing it are redacted in the same write.",
  params: teamParams,
  docs: { team: TEAM_PARAM_DOC },
  body: { schema: teamBodySchema, required: true, maxBytes: MAX_TEAM_BODY_BYTES },
  answers: {
    200: { description: "Replaced", schema: res.teamResponse },
    201: { description: "Created", schema: res.teamResponse },
    400: refusal("Not a valid team id, or the body is not JSON"),
    413: refusal("The body is too large"),
    415: refusal("The body is not JSON"),
    422: refusal(
      "Invalid name or members, or a member who is not an active member of the workspace; " +
        "details.issues lists { path, message }",
    ),
  },
  audit: ["team.change"],
});

export const deleteTeam = operation({
  id: "deleteTeam",
  method: "DELETE",
  path: "/teams/{team}",
  access: "admin",
  summary: "Delete a team: its members lose what was shared with it, and its memory is erased",
  params: teamParams,
  docs: { team: TEAM_PARAM_DOC },
  answers: { 204: { description: "Deleted" }, 404: refusal("No such team") },
  audit: ["team.change"],
});

export const embeddingStatus = operation({
  id: "embeddingStatus",
  method: "GET",
  path: "/admin/embeddings",
  access: "admin",
  summary: "The embedding model and how many of the workspace's items are indexed or pending",
  answers: { 200: { description: "Counts for the configured model", schema: res.embeddingStatusResponse } },
});

export const eraseMe = operation({
  id: "eraseMe",
  method: "DELETE",
  path: "/me",
  access: "items:write",
  summary: "Erase everything of the caller",
  description:
    "Items, memory, versions, runs, the agent's state and the caller's place in the workspace. Audit " +
    "events are kept, with the caller's name replaced by erased:<one-way hash> as actor and subject.",
  answers: { 204: { description: "Erased" } },
  audit: ["me.erase"],
});

export const myAudit = operation({
  id: "myAudit",
  method: "GET",
  path: "/me/audit",
  access: "memory:read",
  summary: "Who read the caller's memory and items, and when, newest first",
  query: myAuditQuery,
  docs: auditDocs,
  answers: {
    200: { description: "One page of events", schema: res.auditPageResponse },
    400: refusal("Bad parameter or cursor"),
  },
});

export const myUsage = operation({
  id: "myUsage",
  method: "GET",
  path: "/me/usage",
  access: "memory:read",
  summary: "What the caller's memory cost per day: runs, LLM calls, tokens per model, reads, estimated USD",
  query: usageQuery,
  docs: usageDocs,
  answers: {
    200: { description: "The days with anything on them, oldest first", schema: res.myUsageResponse },
    400: refusal("Bad date range"),
  },
});

export const workspaceAudit = operation({
  id: "workspaceAudit",
  method: "GET",
  path: "/audit",
  access: "admin",
  scopeCheckedByOperation: true,
  summary: "The workspace's audit events, newest first; ?format=ndjson exports every matching event",
  description:
    "Every read of memory or items and every access-changing write, on every channel (http, mcp). " +
    "Append-only: no route changes an event; events older than AUDIT_RETENTION_DAYS are pruned daily.",
  query: auditQuery,
  docs: auditDocs,
  answers: {
    200: {
      description: "One page of events (or, with format=ndjson, every event)",
      content: { "application/json": res.auditPageResponse, "application/x-ndjson": res.auditEventResponse },
    },
    400: refusal("Bad parameter or cursor"),
  },
  audit: ["audit.export"],
});

export const workspaceUsage = operation({
  id: "workspaceUsage",
  method: "GET",
  path: "/usage",
  access: "admin",
  summary: "The usage ledger per subject of the workspace, by estimated cost (highest first)",
  query: workspaceUsageQuery,
  docs: usageDocs,
  answers: {
    200: { description: "Each subject with its totals and days", schema: res.workspaceUsageResponse },
    400: refusal("Bad date range or sort"),
  },
});

export const issueIngestAddress = operation({
  id: "issueIngestAddress",
  method: "POST",
  path: "/me/ingest-address",
  access: "items:write",
  summary: "The caller's private inbound-email address (the same one until revoked)",
  description:
    "Mail to the address is accepted only from the envelope senders it lists (allowedSenders); mail " +
    "from any other sender is refused with a bounce. Send allowedSenders to set the list, on a new " +
    "address or an existing one. A new address without a list accepts only the token's email claim, " +
    "or no sender when the token has none; the answer always carries the list.",
  body: { schema: ingestAddressBodySchema, required: false, maxBytes: MAX_INGEST_ADDRESS_BODY_BYTES },
  answers: {
    200: {
      description: "The existing address (with its list, changed if one was sent)",
      schema: res.ingestAddressResponse,
    },
    201: { description: "A new address", schema: res.ingestAddressResponse },
    400: refusal("The body is not valid JSON"),
    415: refusal("The body is not JSON"),
    422: refusal("An allowed sender that is neither an address nor an @domain, or more than 100"),
  },
});

export const revokeIngestAddress = operation({
  id: "revokeIngestAddress",
  method: "DELETE",
  path: "/me/ingest-address",
  access: "items:write",
  summary: "Revoke the caller's inbound-email address: mail to it is refused from now on",
  answers: { 204: { description: "Revoked" }, 404: refusal("The caller has no address") },
});

export const mcp = operation({
  id: "mcp",
  method: "POST",
  path: "/mcp",
  access: "memory:read",
  protocol: true,
  summary: "The MCP server (Streamable HTTP, stateless; 2026-07-28 and 2025 protocol revisions)",
  description:
    "JSON-RPC per the Model Context Protocol; use an MCP client. Tools: get_memory (asOf for a past version), " +
    "diff_memory, search_items, get_item, list_dismissals, remember, forget_item, dismiss_statement and " +
    "withdraw_dismissal (items:write), refresh_memory; the memory tools and search_items take an optional team (the caller must be a member; otherwise not_found). Resources: memory://me, " +
    "memory://team/{team}, item://{id}. A tool call the token's scopes do not allow is 403 " +
    "insufficient_scope; browser Origins must be allowed.",
  body: { schema: z.looseObject({}), required: true, maxBytes: 0 },
  answers: {
    200: {
      description: "JSON-RPC response (JSON, or an SSE stream)",
      content: { "application/json": null, "text/event-stream": null },
    },
    202: { description: "Notification accepted" },
  },
});

/** Every operation, in the order the document lists them. */
export const OPERATIONS: readonly Operation[] = [
  health,
  openapi,
  protectedResourceMetadata,
  mcpProtectedResourceMetadata,
  ingestItems,
  searchItems,
  getItem,
  deleteItem,
  ...Object.values(ownMemory),
  listMembers,
  addMember,
  removeMember,
  listTeams,
  getTeam,
  putTeam,
  deleteTeam,
  ...Object.values(teamMemory),
  embeddingStatus,
  eraseMe,
  myAudit,
  myUsage,
  workspaceAudit,
  workspaceUsage,
  issueIngestAddress,
  revokeIngestAddress,
  mcp,
];
