/**
 * The operations of the caller's workspace and account: members and teams (the admin manages them), the
 * embeddings status, erasing oneself, the audit trail and the usage ledger, and the inbound-email address.
 * Part of the operation table (operations.ts).
 */
import * as res from "./answers";
import { type Answer, operation } from "./operation";
import {
  auditQuery,
  ingestAddressBodySchema,
  memberBodySchema,
  myAuditQuery,
  TEAM_PARAM_DOC,
  teamBodySchema,
  teamParams,
  USER_PARAM_DOC,
  usageQuery,
  userParams,
  workspaceUsageQuery,
} from "./requests";

const refusal = (description: string): Answer => ({ description, schema: res.errorBody });
const MAX_TEAM_BODY_BYTES = 256 * 1024;
const MAX_INGEST_ADDRESS_BODY_BYTES = 64 * 1024;

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
  summary: "Add a user to the workspace, or add a removed member back; optionally tie them to an address",
  params: userParams,
  docs: { user: USER_PARAM_DOC },
  body: { schema: memberBodySchema, required: false, maxBytes: 4 * 1024 },
  answers: {
    200: { description: "Already an active member", schema: res.memberResponse },
    201: { description: "Added (or added back)", schema: res.memberResponse },
    400: refusal("Not a valid user id"),
    422: refusal("The email is not an address"),
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
