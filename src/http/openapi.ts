/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the zod schemas that validate requests
 * (item-schemas.ts) and the response schemas (response-schemas.ts) with zod's own z.toJSONSchema: OpenAPI
 * 3.1 schemas are JSON Schema 2020-12, which zod emits natively, so no second framework is needed and the
 * route files stay as they are. test/openapi.test.ts proves that the document and app.routes agree.
 */
import { z } from "zod";
import { ITEM_KINDS } from "../domain/items";
import { MAX_WAIT_SECONDS } from "../memory/read-model";
import { itemInputSchema, MAX_ITEMS_PER_REQUEST, searchSchema } from "./item-schemas";
import * as res from "./response-schemas";

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
const pathId = (description: string) => ({
  name: "id",
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
const secured = (scope: string, operation: Operation): Operation => ({
  security: [{ bearer: [scope] }],
  ...operation,
  responses: {
    ...(operation.responses as Record<string, unknown>),
    "401": error("Missing, invalid or expired token (WWW-Authenticate: Bearer)"),
    "403": error(`The token lacks the ${scope} scope`),
    "503": error("The database is not answering (Retry-After)"),
  },
});

/** Query parameters that are parsed by hand in routes/memory.ts (no request schema there yet). */
const pageLimit = z.number().int().min(1).max(100).default(20);
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
              schema: schemaOf(
                z.object({ items: z.array(itemInputSchema).max(MAX_ITEMS_PER_REQUEST) }),
                "input",
              ),
            },
          },
        },
        responses: {
          "200": json(res.ingestResponse, "Each item's id and whether it was created, updated or unchanged"),
          "400": error("The body is not { items: [...] } JSON"),
          "413": error("Too many items or too many bytes"),
          "422": error("Invalid items; details.items lists { index, path, message }"),
        },
      }),
      get: secured("memory:read", {
        operationId: "searchItems",
        summary: "Search what the caller may see (owned or shared with them)",
        parameters: [
          query("q", s.q, "Full-text query; ranked when present, newest first otherwise"),
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
        responses: { "200": json(res.searchResponse, "One page of results"), "400": error("Bad parameter") },
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
        summary: "Delete an owned item; memories citing it are redacted at once",
        parameters: [pathId("Item id")],
        responses: { "204": { description: "Deleted" }, "404": error("No such item owned by the caller") },
      }),
    },
    "/memory": {
      get: secured("memory:read", {
        operationId: "getMemory",
        summary: "The caller's memory",
        parameters: [
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
          { name: "If-None-Match", in: "header", required: false, schema: { type: "string" } },
        ],
        responses: {
          "200": { ...json(res.memoryResponse, "The memory (ETag = version)") },
          "202": json(res.generatingResponse, "Being generated; Retry-After"),
          "304": { description: "Not modified" },
          "400": error("Bad wait or format"),
          "503": error("llm_not_configured, generation_failing, or the database is down"),
        },
      }),
    },
    "/memory/refresh": {
      post: secured("memory:read", {
        operationId: "refreshMemory",
        summary: "Ask for a run now",
        responses: {
          "202": json(res.refreshResponse, "Accepted"),
          "429": error("Inside the minimum interval (Retry-After)"),
        },
      }),
    },
    "/memory/runs": {
      get: secured("memory:read", {
        operationId: "listRuns",
        summary: "The runs ledger, newest first",
        parameters: [query("limit", pageLimit, "Page size"), query("cursor", z.string(), "Next page")],
        responses: { "200": json(res.runsResponse, "One page of runs"), "400": error("Bad parameter") },
      }),
    },
    "/memory/versions": {
      get: secured("memory:read", {
        operationId: "listVersions",
        summary: "Accepted versions, newest first",
        parameters: [query("limit", pageLimit, "Page size"), query("cursor", z.string(), "Next page")],
        responses: {
          "200": json(res.versionsResponse, "One page of versions"),
          "400": error("Bad parameter"),
        },
      }),
    },
    "/memory/versions/{id}": {
      get: secured("memory:read", {
        operationId: "getVersion",
        summary: "One version with its statements, verdict and citations",
        parameters: [pathId("Version id")],
        responses: { "200": json(res.versionResponse, "The version"), "404": error("No such version") },
      }),
    },
    "/me": {
      delete: secured("items:write", {
        operationId: "eraseMe",
        summary: "Erase everything of the caller",
        responses: { "204": { description: "Erased" } },
      }),
    },
    "/me/ingest-address": {
      post: secured("items:write", {
        operationId: "issueIngestAddress",
        summary: "The caller's private inbound-email address (the same one until revoked)",
        responses: {
          "200": json(res.ingestAddressResponse, "The existing address"),
          "201": json(res.ingestAddressResponse, "A new address"),
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
          "JSON-RPC per the Model Context Protocol; use an MCP client. Tools: get_memory, search_items, get_item, " +
          "remember and forget_item (items:write), refresh_memory. Resources: memory://me, item://{id}. A tool " +
          "call the token's scopes do not allow is 403 insufficient_scope; browser Origins must be allowed.",
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

let cached: Schema | undefined;

/** The document; built once per isolate. */
export function openApiDocument(): Schema {
  cached ??= {
    openapi: "3.1.0",
    info: {
      title: "unified-memory",
      version: "0.1.0",
      description:
        "One cited, fact-checked memory per user, served to any agent. Errors are { error: { code, message, requestId } }.",
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
          description: "JWT with `sub` = the user and `scope` among memory:read, items:write, admin",
        },
      },
      schemas: { Error: schemaOf(res.errorBody, "output") },
    },
  };
  return cached;
}
