/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the zod schemas that validate requests
 * (item-schemas.ts) and the response schemas (response-schemas.ts) with zod's own z.toJSONSchema: OpenAPI
 * 3.1 schemas are JSON Schema 2020-12, which zod emits natively, so no second framework is needed and the
 * route files stay as they are. test/openapi.test.ts proves that the document and app.routes agree.
 */
import { z } from "zod";
import type { Scope } from "../app/caller";
import { MAX_ITEMS_PER_REQUEST, searchSchema } from "../app/item-input";
import { AUDIT_ACTIONS } from "../domain/audit";
import { ITEM_KINDS, itemInputSchema } from "../domain/item-schema";
import { PAGE_LIMIT } from "../domain/pages";
import { MAX_TEAM_ID_LENGTH, MAX_USER_ID_LENGTH } from "../domain/workspaces";
import { MAX_WAIT_SECONDS } from "../memory/read-model";
import { AUDIT_PAGE_LIMIT } from "./audit-requests";
import { ingestAddressBodySchema } from "./ingest-address-schema";
import * as res from "./response-schemas";
import { dismissBodySchema } from "./statement-schemas";
import { teamBodySchema } from "./team-schemas";

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: "input" | "output"): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as Schema;
  return rest;
}

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema: schemaOf(schema, "output") } },
});
const error = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});
const query = (name: string, schema: z.ZodType, description: string, required = false) => ({
  name,
  in: "query",
  required,
  description,
  schema: schemaOf(schema, "input"),
});
const pathParam = (name: string, description: string, schema: Schema = { type: "string" }) => ({
  name,
  in: "path",
  required: true,
  description,
  schema,
});
const pathId = (description: string) => pathParam("id", description);
const teamParam = pathParam(
  "team",
  `Team id: 1-${MAX_TEAM_ID_LENGTH} letters, digits, '.', '_' or '-', starting with a letter or digit`,
  { type: "string", minLength: 1, maxLength: MAX_TEAM_ID_LENGTH },
);
const userParam = pathParam("user", "User id (a token's sub) in the caller's workspace", {
  type: "string",
  minLength: 1,
  maxLength: MAX_USER_ID_LENGTH,
});

const REMOVED = "the token's user was removed from the workspace (until an admin adds them back)";

/**
 * A route behind the bearer token: `scope` is the one it requires (admin implies every scope), null for
 * any valid token. Every such route refuses a removed member with 403; an operation may describe a 403
 * of its own, which then says both.
 */
const secured = (scope: Scope | null, operation: Operation): Operation => {
  const { "403": forbidden, ...responses } = operation.responses as Record<string, unknown>;
  return {
    security: [{ bearer: scope === null ? [] : [scope] }],
    ...operation,
    responses: {
      ...responses,
      "401": error("Missing, invalid or expired token (WWW-Authenticate: Bearer)"),
      "403":
        forbidden ??
        error(scope === null ? `Forbidden: ${REMOVED}` : `The token lacks the ${scope} scope, or ${REMOVED}`),
      "503": error("The database is not answering (Retry-After)"),
    },
  };
};

/** POST /items's item, with what sharedWith may name. */
const itemRequest = itemInputSchema.extend({
  sharedWith: itemInputSchema.shape.sharedWith.describe(
    "Members (`ada`) or teams (`team:payments`) of the caller's workspace who may see the item; a target " +
      "the workspace does not know makes the request 422 and nothing is written",
  ),
});

/** Query parameters that are parsed by hand in routes/memory.ts (no request schema there yet). */
const pageLimit = z.number().int().min(1).max(PAGE_LIMIT.max).default(PAGE_LIMIT.default);
const s = searchSchema.shape;

function paths(): Record<string, Record<string, Operation>> {
  return {
    "/health": {
      get: {
        operationId: "health",
        summary: "Whether the service and its database answer",
        security: [],
        responses: {
          "200": json(res.healthResponse, "Healthy"),
          "503": json(res.healthResponse, "Degraded"),
        },
      },
    },
    "/openapi.json": {
      get: {
        operationId: "openapi",
        summary: "This document",
        security: [],
        responses: {
          "200": { description: "The OpenAPI 3.1 document", content: { "application/json": {} } },
        },
      },
    },
    "/.well-known/oauth-protected-resource": {
      get: {
        operationId: "protectedResourceMetadata",
        summary: "RFC 9728 metadata of the API (JWKS mode only)",
        security: [],
        responses: {
          "200": json(res.protectedResourceResponse, "Where to get tokens"),
          "404": error("No authorization server is configured"),
        },
      },
    },
    "/.well-known/oauth-protected-resource/mcp": {
      get: {
        operationId: "mcpProtectedResourceMetadata",
        summary: "RFC 9728 metadata of the MCP endpoint (JWKS mode only)",
        security: [],
        responses: {
          "200": json(res.protectedResourceResponse, "Where to get tokens"),
          "404": error("No authorization server is configured"),
        },
      },
    },
    "/items": {
      post: secured("items:write", {
        operationId: "ingestItems",
        summary: `Upsert up to ${MAX_ITEMS_PER_REQUEST} items (5 MB), all or nothing`,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: schemaOf(z.object({ items: z.array(itemRequest).max(MAX_ITEMS_PER_REQUEST) }), "input"),
            },
          },
        },
        responses: {
          "200": json(res.ingestResponse, "Each item's id and whether it was created, updated or unchanged"),
          "400": error("The body is not { items: [...] } JSON"),
          "413": error("Too many items or too many bytes"),
          "415": error("The body is not JSON"),
          "422": error(
            "Invalid items, or a sharedWith target that is not a member or team of the caller's workspace " +
              "(nothing is written); details.items lists { index, path, message }",
          ),
        },
      }),
      get: secured("memory:read", {
        operationId: "searchItems",
        summary: "Search what the caller may see (owned, shared with them, or shared with a team of theirs)",
        parameters: [
          query("q", s.q, "What to look for; ranked when present, newest first otherwise"),
          query(
            "mode",
            s.mode,
            "How q is matched: hybrid (keyword and semantic fused by reciprocal rank; the default with an " +
              "embedding model), keyword (every word or a hyphen/compound variant of it, then any word; the " +
              "default without one) or semantic (by meaning; 400 semantic_search_unavailable without an " +
              "embedding model). Every filter applies in every mode",
          ),
          {
            ...query("kind", z.array(z.enum(ITEM_KINDS)), "Item kinds (repeat or comma-separate)"),
            style: "form",
            explode: true,
          },
          query("since", s.since, "Occurred at or after (date or date-time)"),
          query("until", s.until, "Occurred before (date or date-time)"),
          {
            ...query("people", z.array(z.string()), "Author or participant names"),
            style: "form",
            explode: true,
          },
          query("limit", s.limit, "Page size"),
          query("cursor", s.cursor, "nextCursor of the previous page"),
        ],
        responses: {
          "200": json(res.searchResponse, "One page of results"),
          "400": error("Bad parameter, or mode=semantic without an embedding model"),
          "503": error("mode=semantic and the embedding model is not answering (embedding_unavailable)"),
        },
      }),
    },
    "/items/{id}": {
      get: secured("memory:read", {
        operationId: "getItem",
        summary: "One item with its links both ways",
        parameters: [pathId("Item id")],
        responses: {
          "200": json(res.itemResponse, "The item"),
          "404": error("No such item visible to the caller"),
        },
      }),
      delete: secured("items:write", {
        operationId: "deleteItem",
        summary: "Delete an owned item, or leave an item shared with the caller",
        description:
          "The owner deletes the item; a member it is shared with directly is removed from the share (the item " +
          "stays for everyone else). Either way, every memory version that can no longer see the item is " +
          "redacted at once. An item the caller sees only through a team is left by leaving the team.",
        parameters: [pathId("Item id")],
        responses: {
          "204": { description: "Deleted (owner) or left (direct sharee)" },
          "403": error(
            `The caller sees the item only through a team, the token lacks the items:write scope, or ${REMOVED}`,
          ),
          "404": error("No such item visible to the caller"),
        },
      }),
    },
    ...memoryPaths("/memory", false),
    "/members": {
      get: secured("admin", {
        operationId: "listMembers",
        summary: "The members of the caller's workspace, removed ones included",
        responses: { "200": json(res.membersResponse, "The members") },
      }),
    },
    "/members/{user}": {
      put: secured("admin", {
        operationId: "addMember",
        summary: "Add a user to the workspace, or add a removed member back",
        parameters: [userParam],
        responses: {
          "200": json(res.memberResponse, "Already an active member"),
          "201": json(res.memberResponse, "Added (or added back)"),
          "400": error("Not a valid user id"),
        },
      }),
      delete: secured("admin", {
        operationId: "removeMember",
        summary: "Remove a member: erases nothing of theirs, but ends their access at once",
        description:
          "The member leaves every team and every share of the workspace; their memory versions that cite what " +
          "they can no longer see are redacted in the same write; their token is refused with 403 until an " +
          "admin adds them back with PUT.",
        parameters: [userParam],
        responses: {
          "204": { description: "Removed" },
          "400": error("An admin cannot remove themselves"),
          "404": error("No such member in the workspace"),
        },
      }),
    },
    "/teams": {
      get: secured(null, {
        operationId: "listTeams",
        summary: "Teams of the caller's workspace: all of them for an admin, the caller's own otherwise",
        responses: { "200": json(res.teamsResponse, "The teams") },
      }),
    },
    "/teams/{team}": {
      get: secured(null, {
        operationId: "getTeam",
        summary: "One team (admins, and the team's members)",
        parameters: [teamParam],
        responses: {
          "200": json(res.teamResponse, "The team"),
          "404": error("No such team, or the caller is neither an admin nor a member of it"),
        },
      }),
      put: secured("admin", {
        operationId: "putTeam",
        summary: "Create a team, or replace its name and members",
        description:
          "Members must be active members of the workspace. Members dropped by a replacement lose what is " +
          "shared with the team at once: their memory versions citing it are redacted in the same write.",
        parameters: [teamParam],
        requestBody: {
          required: true,
          content: { "application/json": { schema: schemaOf(teamBodySchema, "input") } },
        },
        responses: {
          "200": json(res.teamResponse, "Replaced"),
          "201": json(res.teamResponse, "Created"),
          "400": error("Not a valid team id, or the body is not JSON"),
          "413": error("The body is too large"),
          "415": error("The body is not JSON"),
          "422": error(
            "Invalid name or members, or a member who is not an active member of the workspace; " +
              "details.issues lists { path, message }",
          ),
        },
      }),
      delete: secured("admin", {
        operationId: "deleteTeam",
        summary: "Delete a team: its members lose what was shared with it, and its memory is erased",
        parameters: [teamParam],
        responses: { "204": { description: "Deleted" }, "404": error("No such team") },
      }),
    },
    ...memoryPaths("/teams/{team}/memory", true),
    "/admin/embeddings": {
      get: secured("admin", {
        operationId: "embeddingStatus",
        summary: "The embedding model and how many of the workspace's items are indexed or pending",
        responses: { "200": json(res.embeddingStatusResponse, "Counts for the configured model") },
      }),
    },
    "/me": {
      delete: secured("items:write", {
        operationId: "eraseMe",
        summary: "Erase everything of the caller",
        description:
          "Items, memory, versions, runs, the agent's state and the caller's place in the workspace. Audit " +
          "events are kept, with the caller's name replaced by erased:<one-way hash> as actor and subject.",
        responses: { "204": { description: "Erased" } },
      }),
    },
    "/me/audit": {
      get: secured("memory:read", {
        operationId: "myAudit",
        summary: "Who read the caller's memory and items, and when, newest first",
        parameters: auditParams(false),
        responses: {
          "200": json(res.auditPageResponse, "One page of events"),
          "400": error("Bad parameter or cursor"),
        },
      }),
    },
    "/me/usage": {
      get: secured("memory:read", {
        operationId: "myUsage",
        summary:
          "What the caller's memory cost per day: runs, LLM calls, tokens per model, reads, estimated USD",
        parameters: usageParams,
        responses: {
          "200": json(res.myUsageResponse, "The days with anything on them, oldest first"),
          "400": error("Bad date range"),
        },
      }),
    },
    "/audit": {
      get: secured("admin", {
        operationId: "workspaceAudit",
        summary: "The workspace's audit events, newest first; ?format=ndjson exports every matching event",
        description:
          "Every read of memory or items and every access-changing write, on every channel (http, mcp). " +
          "Append-only: no route changes an event; events older than AUDIT_RETENTION_DAYS are pruned daily.",
        parameters: [
          ...auditParams(true),
          query("format", z.enum(["json", "ndjson"]).default("json"), "ndjson: one event a line, all pages"),
        ],
        responses: {
          "200": {
            ...json(res.auditPageResponse, "One page of events (or, with format=ndjson, every event)"),
            content: {
              "application/json": { schema: schemaOf(res.auditPageResponse, "output") },
              "application/x-ndjson": { schema: schemaOf(res.auditEventResponse, "output") },
            },
          },
          "400": error("Bad parameter or cursor"),
        },
      }),
    },
    "/usage": {
      get: secured("admin", {
        operationId: "workspaceUsage",
        summary: "The usage ledger per subject of the workspace, by estimated cost (highest first)",
        parameters: [
          ...usageParams,
          query("sort", z.enum(["cost", "tokens", "subject"]).default("cost"), "Order of the subjects"),
        ],
        responses: {
          "200": json(res.workspaceUsageResponse, "Each subject with its totals and days"),
          "400": error("Bad date range or sort"),
        },
      }),
    },
    "/me/ingest-address": {
      post: secured("items:write", {
        operationId: "issueIngestAddress",
        summary: "The caller's private inbound-email address (the same one until revoked)",
        description:
          "Mail to the address is accepted only from the envelope senders it lists (allowedSenders); mail " +
          "from any other sender is refused with a bounce. Send allowedSenders to set the list, on a new " +
          "address or an existing one. A new address without a list accepts only the token's email claim, " +
          "or no sender when the token has none; the answer always carries the list.",
        requestBody: {
          required: false,
          content: { "application/json": { schema: schemaOf(ingestAddressBodySchema, "input") } },
        },
        responses: {
          "200": json(
            res.ingestAddressResponse,
            "The existing address (with its list, changed if one was sent)",
          ),
          "201": json(res.ingestAddressResponse, "A new address"),
          "400": error("The body is not valid JSON"),
          "415": error("The body is not JSON"),
          "422": error("An allowed sender that is neither an address nor an @domain, or more than 100"),
        },
      }),
      delete: secured("items:write", {
        operationId: "revokeIngestAddress",
        summary: "Revoke the caller's inbound-email address: mail to it is refused from now on",
        responses: { "204": { description: "Revoked" }, "404": error("The caller has no address") },
      }),
    },
    "/mcp": {
      post: secured("memory:read", {
        operationId: "mcp",
        summary: "The MCP server (Streamable HTTP, stateless; 2026-07-28 and 2025 protocol revisions)",
        description:
          "JSON-RPC per the Model Context Protocol; use an MCP client. Tools: get_memory (asOf for a past version), " +
          "diff_memory, search_items, get_item, list_dismissals, remember, forget_item, dismiss_statement and " +
          "withdraw_dismissal (items:write), refresh_memory; the memory tools and search_items take an optional team (the caller must be a member; otherwise not_found). Resources: memory://me, " +
          "memory://team/{team}, item://{id}. A tool call the token's scopes do not allow is 403 " +
          "insufficient_scope; browser Origins must be allowed.",
        requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
        responses: {
          "200": {
            description: "JSON-RPC response (JSON, or an SSE stream)",
            content: { "application/json": {}, "text/event-stream": {} },
          },
          "202": { description: "Notification accepted" },
        },
      }),
    },
  };
}

/**
 * The memory routes of one subject: the caller's own at /memory, a team's at /teams/{team}/memory (the same
 * handlers, with the team as subject once membership is checked: a non-member gets 404, admin or not).
 */
function memoryPaths(base: string, forTeam: boolean): Record<string, Record<string, Operation>> {
  const whose = forTeam ? "The team's" : "The caller's";
  const id = (name: string) =>
    forTeam ? name.replace(/^(get|list|refresh|diff|dismiss|withdraw)/, "$1Team") : name;
  const params = (...more: unknown[]) => (forTeam ? [teamParam, ...more] : more);
  const notMember = forTeam ? { "404": error("No such team among the caller's teams") } : {};
  const page = [query("limit", pageLimit, "Page size"), query("cursor", z.string(), "Next page")];
  return {
    [base]: {
      get: secured("memory:read", {
        operationId: id("getMemory"),
        summary: `${whose} memory`,
        parameters: params(
          query(
            "wait",
            z.number().int().min(0).max(MAX_WAIT_SECONDS).default(0),
            "Hold a 202 up to N seconds",
          ),
          query(
            "format",
            z.enum(["markdown", "json"]).default("markdown"),
            "markdown, or statements as JSON",
          ),
          query(
            "asOf",
            z.iso.datetime({ offset: true }),
            "The version that was current at this instant (redactions and dismissals applied); no wait",
          ),
          { name: "If-None-Match", in: "header", required: false, schema: { type: "string" } },
        ),
        responses: {
          "200": json(
            z.union([res.memoryResponse, res.emptyMemoryResponse, res.memoryAsOfResponse]),
            "The memory (ETag = version), or empty: true while there is no item to remember; with asOf, the version current then",
          ),
          "202": json(res.generatingResponse, "Being generated; Retry-After"),
          "304": { description: "Not modified" },
          "400": error("Bad wait, format or asOf"),
          "404": error(
            forTeam
              ? "no_memory_at: there was no memory at asOf; not_found: no such team among the caller's"
              : "no_memory_at: there was no memory at asOf",
          ),
          "503": error("llm_not_configured, generation_failing, or the database is down"),
        },
      }),
    },
    [`${base}/versions/{id}/diff`]: {
      get: secured("memory:read", {
        operationId: id("diffVersion"),
        summary: "What changed in this version against another (default: the version before it)",
        description:
          "Statement by statement, by statement id: added, kept, and removed with the reason (superseded, " +
          "unsupported, dropped, redacted, dismissed).",
        parameters: params(
          pathId("Version id"),
          query("against", z.string(), "The version to compare with (default: the one before)"),
        ),
        responses: {
          "200": json(res.versionDiffResponse, "The changes"),
          "404": error(forTeam ? "No such version, or no such team among the caller's" : "No such version"),
        },
      }),
    },
    [`${base}/statements/{id}/dismiss`]: {
      post: secured("items:write", {
        operationId: id("dismissStatement"),
        summary: forTeam
          ? "Dismiss a statement of the team's memory (any member)"
          : "Dismiss a statement of the caller's memory",
        description:
          "Takes the statement out of the current version at once, as a redaction does (new ETag; the edge " +
          "cache follows before the answer), and records the dismissal: later runs are told, and a draft " +
          "statement restating it (same normalised text, or the same citations and near-identical words) is dropped.",
        parameters: params(pathId("Statement id (statements[].id of ?format=json)")),
        requestBody: {
          required: false,
          content: { "application/json": { schema: schemaOf(dismissBodySchema, "input") } },
        },
        responses: {
          "201": json(res.dismissResponse, "Dismissed"),
          "400": error("The body is not JSON"),
          "404": error(
            forTeam
              ? "No such statement in the current memory, or no such team among the caller's"
              : "No such statement in the current memory",
          ),
          "413": error("The body is too large"),
          "415": error("The body is not JSON"),
          "422": error("Invalid reason"),
        },
      }),
    },
    [`${base}/dismissals`]: {
      get: secured("memory:read", {
        operationId: id("listDismissals"),
        summary: `${whose} dismissed statements, newest first`,
        parameters: params(),
        responses: { "200": json(res.dismissalsResponse, "The dismissals"), ...notMember },
      }),
    },
    [`${base}/dismissals/{id}`]: {
      delete: secured("items:write", {
        operationId: id("withdrawDismissal"),
        summary: "Withdraw a dismissal: the statement may return with the next run",
        parameters: params(pathId("Dismissal id")),
        responses: {
          "204": { description: "Withdrawn" },
          "404": error(
            forTeam ? "No such dismissal, or no such team among the caller's" : "No such dismissal",
          ),
        },
      }),
    },
    [`${base}/refresh`]: {
      post: secured("memory:read", {
        operationId: id("refreshMemory"),
        summary: `Ask for a run of ${whose.toLowerCase()} memory now`,
        parameters: params(),
        responses: {
          "202": json(res.refreshResponse, "Accepted"),
          ...notMember,
          "429": error("Inside the minimum interval (Retry-After)"),
        },
      }),
    },
    [`${base}/runs`]: {
      get: secured("memory:read", {
        operationId: id("listRuns"),
        summary: `${whose} runs ledger, newest first`,
        parameters: params(...page),
        responses: {
          "200": json(res.runsResponse, "One page of runs"),
          "400": error("Bad parameter"),
          ...notMember,
        },
      }),
    },
    [`${base}/versions`]: {
      get: secured("memory:read", {
        operationId: id("listVersions"),
        summary: `${whose} accepted memory versions, newest first`,
        parameters: params(...page),
        responses: {
          "200": json(res.versionsResponse, "One page of versions"),
          "400": error("Bad parameter"),
          ...notMember,
        },
      }),
    },
    [`${base}/versions/{id}`]: {
      get: secured("memory:read", {
        operationId: id("getVersion"),
        summary: "One version with its statements, verdict and citations",
        parameters: params(pathId("Version id")),
        responses: {
          "200": json(res.versionResponse, "The version"),
          "404": error(forTeam ? "No such version, or no such team among the caller's" : "No such version"),
        },
      }),
    },
  };
}

function auditParams(withSubject: boolean) {
  return [
    query("actor", z.string(), "Only events of this actor (a user id, or erased:<hash>)"),
    ...(withSubject
      ? [query("subject", z.string(), "Only events about this subject (`ada`, `team:payments`)")]
      : []),
    query("action", z.enum(AUDIT_ACTIONS), "Only this action"),
    query("since", z.string(), "Only events at or after this instant (ISO 8601)"),
    query("until", z.string(), "Only events before this instant"),
    query(
      "limit",
      z.number().int().min(1).max(AUDIT_PAGE_LIMIT.max).default(AUDIT_PAGE_LIMIT.default),
      "Events a page",
    ),
    query("cursor", z.string(), "nextCursor of the previous page"),
  ];
}

const usageParams = [
  query("since", z.iso.date(), "First day (UTC), default 29 days before until"),
  query("until", z.iso.date(), "Last day (UTC, inclusive), default today; at most 366 days in all"),
];

let cached: Schema | undefined;

/** The document; built once per isolate. */
export function openApiDocument(): Schema {
  cached ??= {
    openapi: "3.1.0",
    info: {
      title: "unified-memory",
      version: "0.1.0",
      description:
        "One cited, fact-checked memory per user and per team, served to any agent. Every request acts in the " +
        "workspace of its token; nothing is visible, shareable or addressable across workspaces. Errors are " +
        "{ error: { code, message, requestId } }.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    security: [{ bearer: [] }],
    paths: paths(),
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description:
            "JWT with `sub` = the user, `scope` among memory:read, items:write, admin (admin implies the others " +
            "and manages the workspace's members and teams), and the workspace in the configured claim " +
            "(AUTH_WORKSPACE_CLAIM, default org_id; absent = the default workspace)",
        },
      },
      schemas: { Error: schemaOf(res.errorBody, "output") },
    },
  };
  return cached;
}
