/**
 * The operation table: every HTTP operation of the API, declared once (see operation.ts for what an entry
 * holds). The routes, /openapi.json, the MCP tools that mirror an operation and both clients' operation
 * tables are derived from OPERATIONS; docs/contract.md shows how to add one.
 */
import { z } from "zod";
import { itemInputSchema, MAX_BODY_BYTES, MAX_ITEMS_PER_REQUEST } from "../domain/item-schema";
import * as res from "./answers";
import { importOperations } from "./import-operations";
import { memoryOperations } from "./memory-operations";
import { type Answer, type Operation, operation } from "./operation";
import { peopleOperations } from "./people-operations";
import { idParams, searchQuery } from "./requests";
import { signInOperations } from "./sign-in-operations";
import { webhookOperations } from "./webhook-operations";
import {
  addMember,
  deleteTeam,
  embeddingStatus,
  eraseMe,
  getTeam,
  issueIngestAddress,
  listMembers,
  listTeams,
  myAudit,
  myUsage,
  putTeam,
  removeMember,
  revokeIngestAddress,
  workspaceAudit,
  workspaceUsage,
} from "./workspace-operations";

export * from "./sign-in-operations";
export * from "./workspace-operations";

const refusal = (description: string): Answer => ({ description, schema: res.errorBody });
const REMOVED = "the token's user was removed from the workspace (until an admin adds them back)";

/** POST /items's item, with what sharedWith may name. */
const itemRequest = itemInputSchema.extend({
  sharedWith: itemInputSchema.shape.sharedWith.describe(
    "Members (`ada`) or teams (`team:payments`) of the caller's workspace who may see the item; a target " +
      "the workspace does not know makes the request 422 and nothing is written",
  ),
});

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
  lists: ["kind", "people", "person"],
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
    people:
      "Author or participant names (substring), or a name or identifier of one of the caller's people " +
      "(then every item naming any of that person's identifiers matches too)",
    person: "Person ids from GET /people (repeatable): items naming any identifier of the person",
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
    "withdraw_dismissal (items:write), refresh_memory, find_people and get_person; the memory tools and search_items take an optional team (the caller must be a member; otherwise not_found). Resources: memory://me, " +
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
  ...webhookOperations,
  ...signInOperations,
  ...peopleOperations,
  ...importOperations,
  mcp,
];
