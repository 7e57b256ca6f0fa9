/**
 * What one HTTP operation is, declared once: its id, method and path, who may call it, the zod schemas of
 * its inputs and of each answer, and the audit actions it records. The routes (src/http/operation-routes.ts),
 * the OpenAPI document (src/http/openapi.ts), the MCP tools that mirror an operation and both clients'
 * operation tables (scripts/lib/clients) are derived from these entries. Plain data over zod: no platform.
 */
import type { z } from "zod";
import type { Scope } from "../app/caller";
import type { AuditAction } from "../domain/audit";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Who may call: a scope (admin implies every scope), "token" for any valid bearer token of an active
 * member, "public" for no token at all.
 */
export type Access = Scope | "token" | "public";

/** One answer of an operation: its description and body (JSON by default; other media types by name). */
export interface Answer {
  description: string;
  /** The application/json body; absent for an answer without one (204, 304). */
  schema?: z.ZodType;
  /** Bodies by media type, instead of `schema` (null: the type is served, its shape is not described). */
  content?: Record<string, z.ZodType | null>;
}

/** An object schema of named string inputs (path or query parameters). */
export type ParamsSchema = z.ZodObject<Record<string, z.ZodType>>;

export interface RequestBody {
  schema: z.ZodType;
  /** False: an absent or empty body is `{}`. */
  required: boolean;
  /** Bytes of JSON the route reads at most (413 past it). */
  maxBytes: number;
  /**
   * A body that is not JSON (e.g. `application/octet-stream`, an uploaded file): the route does not read it;
   * the handler streams it within `maxBytes`, and `schema` describes it for the document.
   */
  mediaType?: string;
  /** The schema the document shows, when it says more than the one that validates (defaults to `schema`). */
  documented?: z.ZodType;
}

export interface Operation {
  /** Unique, camelCase: the OpenAPI operationId and the clients' operation name. */
  id: string;
  method: Method;
  /** OpenAPI form: `/items/{id}`. */
  path: string;
  access: Access;
  /**
   * True when the operation checks its scope itself, after its audit event began (so a refusal is
   * recorded too): the route then only authenticates.
   */
  scopeCheckedByOperation?: boolean;
  summary: string;
  description?: string;
  /** Path parameters; each is a string. */
  params?: ParamsSchema;
  /** Query parameters, parsed from their text (a 400 names the parameter). */
  query?: ParamsSchema;
  /** Query parameters that may repeat or be comma-separated; they arrive as string arrays. */
  lists?: readonly string[];
  /** What the document says of each parameter, by name. */
  docs?: Record<string, string>;
  /** Request headers the operation reads, documented as optional. */
  headers?: readonly string[];
  body?: RequestBody;
  /** Every answer but the common refusals (401, 403, 503), which the document adds for secured routes. */
  answers: Record<number, Answer>;
  /** The audit actions the operation records (none: it records nothing). */
  audit?: readonly AuditAction[];
  /** Served by a protocol endpoint (MCP) that answers every method of the path itself. */
  protocol?: boolean;
}

/** An entry of the table, its literal types kept for the handlers' inputs. */
export const operation = <const O extends Operation>(entry: O): O => entry;

type Parsed<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

/** What a handler receives: the parsed path and query parameters, and the body read as JSON. */
export interface Input<O extends Operation> {
  params: Parsed<O["params"]>;
  query: Parsed<O["query"]>;
  /** The JSON body (`{}` for an absent optional one), validated by the handler with `body.schema`. */
  body: unknown;
}
