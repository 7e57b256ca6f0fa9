/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the operation table (src/contract/operations.ts)
 * with zod's own z.toJSONSchema: OpenAPI 3.1 schemas are JSON Schema 2020-12, which zod emits natively.
 * The routes are registered from the same table (operation-routes.ts), so the two agree by construction.
 */
import { z } from "zod";
import * as res from "../contract/answers";
import type { Answer, Operation } from "../contract/operation";
import { OPERATIONS } from "../contract/operations";

type Schema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: "input" | "output"): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as Schema;
  return rest;
}

const ERROR_REF = { $ref: "#/components/schemas/Error" };
const error = (description: string) => ({
  description,
  content: { "application/json": { schema: ERROR_REF } },
});
const REMOVED = "the token's user was removed from the workspace (until an admin adds them back)";

function answerOf(answer: Answer): Schema {
  const content: Record<string, z.ZodType | null> | undefined =
    answer.content ?? (answer.schema ? { "application/json": answer.schema } : undefined);
  if (!content) return { description: answer.description };
  const media = Object.fromEntries(
    Object.entries(content).map(([type, schema]) => [
      type,
      schema === null ? {} : { schema: schema === res.errorBody ? ERROR_REF : schemaOf(schema, "output") },
    ]),
  );
  return { description: answer.description, content: media };
}

function parametersOf(op: Operation): Schema[] {
  const docs = op.docs ?? {};
  const described = (name: string) => (docs[name] === undefined ? {} : { description: docs[name] });
  const path = Object.entries(op.params?.shape ?? {}).map(([name, schema]) => ({
    name,
    in: "path",
    required: true,
    ...described(name),
    schema: schemaOf(schema, "input"),
  }));
  const query = Object.entries(op.query?.shape ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: !schema.safeParse(undefined).success && !(op.lists ?? []).includes(name),
    ...described(name),
    schema: schemaOf(schema, "input"),
    ...((op.lists ?? []).includes(name) ? { style: "form", explode: true } : {}),
  }));
  const headers = (op.headers ?? []).map((name) => ({
    name,
    in: "header",
    required: false,
    schema: { type: "string" },
  }));
  return [...path, ...query, ...headers];
}

/** The answers every route behind the bearer token may give besides its own (403 says both when it has one). */
function refusals(op: Operation): Schema {
  if (op.access === "public") return {};
  const own = op.answers[403];
  return {
    "401": error("Missing, invalid or expired token (WWW-Authenticate: Bearer)"),
    "403": own
      ? answerOf(own)
      : error(
          op.access === "token"
            ? `Forbidden: ${REMOVED}`
            : `The token lacks the ${op.access} scope, or ${REMOVED}`,
        ),
    "503": error("The database is not answering (Retry-After)"),
  };
}

function operationOf(op: Operation): Schema {
  const parameters = parametersOf(op);
  const body = op.body;
  const answers = Object.fromEntries(Object.entries(op.answers).map(([s, a]) => [s, answerOf(a)]));
  return {
    security: op.access === "public" ? [] : [{ bearer: op.access === "token" ? [] : [op.access] }],
    operationId: op.id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: body.required,
            content: {
              [body.mediaType ?? "application/json"]: {
                schema: schemaOf(body.documented ?? body.schema, "input"),
              },
            },
          },
        }
      : {}),
    responses: { ...answers, ...refusals(op) },
  };
}

function paths(): Record<string, Record<string, Schema>> {
  const out: Record<string, Record<string, Schema>> = {};
  for (const op of OPERATIONS) {
    out[op.path] = { ...out[op.path], [op.method.toLowerCase()]: operationOf(op) };
  }
  return out;
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
