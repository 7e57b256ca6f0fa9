/**
 * Registers the operation table (src/contract/operations.ts) on the Hono app: for each operation, at its
 * method and path, authentication and the scope it requires, then its input parsed with its schemas (a
 * path or query parameter that does not parse is a 400 naming it; a body is read as bounded JSON), then
 * its handler, a plain Hono function taking that input. Every operation needs exactly one handler (or,
 * for a protocol, one endpoint), so the routes and the OpenAPI document cannot drift apart.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { ProtocolEndpoint } from "../app/endpoint";
import type { Input, Operation, ParamsSchema } from "../contract/operation";
import { AppError } from "../domain/errors";
import { type AuthenticateOptions, authenticate, requireScope } from "./auth";
import type { AppEnv } from "./context";
import { readJsonBody } from "./read-body";

export type OperationHandler<O extends Operation> = (
  c: Context<AppEnv>,
  input: Input<O>,
) => Response | Promise<Response>;

export interface Route {
  operation: Operation;
  handler: OperationHandler<Operation>;
  /** Middleware between authentication and the scope check (e.g. resolving whose memory is read). */
  before?: readonly MiddlewareHandler<AppEnv>[];
  authenticate?: AuthenticateOptions;
}

/** The handler of one operation, its input typed from the operation's schemas. */
export const route = <O extends Operation>(
  operation: O,
  handler: OperationHandler<O>,
  options: Pick<Route, "before" | "authenticate"> = {},
): Route => ({ operation, handler: handler as unknown as OperationHandler<Operation>, ...options });

/** `/items/{id}` → `/items/:id` */
const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

export function registerOperations(
  app: Hono<AppEnv>,
  operations: readonly Operation[],
  routes: readonly Route[],
  protocolRoute: (endpoint: ProtocolEndpoint) => Hono<AppEnv>,
  endpoints: Record<string, ProtocolEndpoint>,
): void {
  const byId = new Map<string, Route>();
  for (const r of routes) {
    if (byId.has(r.operation.id)) throw new Error(`Two handlers for operation ${r.operation.id}`);
    byId.set(r.operation.id, r);
  }
  const declared = new Set(operations.map((op) => op.id));
  for (const id of byId.keys()) {
    if (!declared.has(id)) throw new Error(`A handler for ${id}, which the operation table does not declare`);
  }
  for (const path of Object.keys(endpoints)) {
    if (!operations.some((op) => op.protocol && op.path === path)) {
      throw new Error(`A protocol endpoint at ${path}, which the operation table does not declare`);
    }
  }
  for (const op of operations) {
    if (op.protocol) {
      const endpoint = endpoints[op.path];
      if (!endpoint) throw new Error(`No protocol endpoint for operation ${op.id} at ${op.path}`);
      app.route(op.path, protocolRoute(endpoint));
      continue;
    }
    const r = byId.get(op.id);
    if (!r) throw new Error(`No handler for operation ${op.id}`);
    const chain: MiddlewareHandler<AppEnv>[] = [];
    if (op.access !== "public") chain.push(authenticate(r.authenticate));
    chain.push(...(r.before ?? []));
    if (op.access !== "public" && op.access !== "token" && !op.scopeCheckedByOperation) {
      chain.push(requireScope(op.access));
    }
    const handle: MiddlewareHandler<AppEnv> = async (c) => r.handler(c, await inputOf(c, op));
    app.on(op.method, [honoPath(op.path)], ...chain, handle);
  }
}

async function inputOf(c: Context<AppEnv>, op: Operation): Promise<Input<Operation>> {
  return {
    params: op.params ? parsed(op.params, c.req.param(), "Path parameter") : {},
    query: op.query ? parsed(op.query, queryOf(c, op.query, op.lists ?? []), "Query parameter") : {},
    body: op.body && !op.body.mediaType ? await bodyOf(c, op.body.required, op.body.maxBytes) : undefined,
  } as Input<Operation>;
}

/**
 * The query parameters the schema names, as text: a list parameter gathers every value (repeated or
 * comma-separated), any other takes its value; an empty value is an absent one.
 */
function queryOf(c: Context<AppEnv>, schema: ParamsSchema, lists: readonly string[]) {
  const raw: Record<string, string | string[]> = {};
  for (const name of Object.keys(schema.shape)) {
    if (lists.includes(name)) {
      raw[name] = (c.req.queries(name) ?? [])
        .flatMap((v) => v.split(","))
        .map((v) => v.trim())
        .filter((v) => v !== "");
      continue;
    }
    const value = c.req.query(name);
    if (value !== undefined && value !== "") raw[name] = value;
  }
  return raw;
}

function parsed(schema: ParamsSchema, raw: Record<string, unknown>, what: string) {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new AppError("bad_request", `${what} "${String(issue.path[0] ?? "")}" ${issue.message}`);
}

async function bodyOf(c: Context<AppEnv>, required: boolean, maxBytes: number): Promise<unknown> {
  const empty = !c.req.raw.body || c.req.header("content-length") === "0";
  if (!required && empty) return {};
  return readJsonBody(c.req.raw, maxBytes);
}
