/**
 * What callers send: the request bodies and the path and query parameters of the operations, as zod
 * schemas that parse the text a request carries (a transform may throw an AppError with its own message).
 */
import { z } from "zod";
import { searchSchema } from "../app/item-input";
import { MAX_DISMISSAL_REASON_CHARS, parseInstant } from "../app/statements";
import { AUDIT_ACTIONS } from "../domain/audit";
import { MAX_ALLOWED_SENDERS } from "../domain/ingest-addresses";
import { MAX_WAIT_SECONDS, MEMORY_FORMATS } from "../domain/memory";
import { PAGE_LIMIT } from "../domain/pages";
import { identifier } from "../domain/people/model";
import { textProblem } from "../domain/safe-text";
import {
  MAX_TEAM_ID_LENGTH,
  MAX_TEAM_MEMBERS,
  MAX_TEAM_NAME_LENGTH,
  MAX_USER_ID_LENGTH,
  nameProblem,
} from "../domain/workspaces";

/** A whole number from 1 to `max` (`default` when absent). */
const pageSize = (limits: { default: number; max: number }, message: string) =>
  z.coerce.number(message).int(message).min(1, message).max(limits.max, message).default(limits.default);

/** An instant in the query (ISO 8601 with a zone), checked by the same rule as every stored instant. */
const instant = (name: string) =>
  z
    .string()
    .meta({ format: "date-time" })
    .transform((value) => parseInstant(value, name));

// Path parameters. The team and user bounds are documented here and checked by the operations (a team
// that cannot exist is a 404 like a team that does not, a user id that cannot be one a 400).
export const noParams = z.object({});
export const idParams = z.object({ id: z.string() });
const team = z.string().meta({ minLength: 1, maxLength: MAX_TEAM_ID_LENGTH });
export const teamParams = z.object({ team });
export const teamIdParams = z.object({ team, id: z.string() });
export const userParams = z.object({
  user: z.string().meta({ minLength: 1, maxLength: MAX_USER_ID_LENGTH }),
});
export const TEAM_PARAM_DOC = `Team id: 1-${MAX_TEAM_ID_LENGTH} letters, digits, '.', '_' or '-', starting with a letter or digit`;
export const USER_PARAM_DOC = "User id (a token's sub) in the caller's workspace";

/** GET /items: the search's query, as the operation and the MCP tool take it (kind and people are lists). */
const s = searchSchema.shape;
export const searchQuery = z.object({
  q: s.q,
  mode: s.mode,
  kind: s.kinds,
  since: s.since,
  until: s.until,
  people: s.people,
  person: s.person,
  limit: s.limit,
  cursor: s.cursor,
});

const WAIT_MESSAGE = `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`;
const wholeSeconds = z.coerce
  .number(WAIT_MESSAGE)
  .int(WAIT_MESSAGE)
  .min(0, WAIT_MESSAGE)
  .max(MAX_WAIT_SECONDS, WAIT_MESSAGE);

/** GET /memory (and a team's): how long to hold a 202, the format, and an instant for a past version. */
export const memoryQuery = z.object({
  wait: wholeSeconds.default(0),
  format: z.enum(MEMORY_FORMATS, 'must be "markdown" or "json"').default("markdown"),
  asOf: instant("asOf").optional(),
});

/** A page of the runs ledger or the versions. */
export const pageQuery = z.object({
  limit: pageSize(PAGE_LIMIT, `must be a whole number from 1 to ${PAGE_LIMIT.max}`),
  cursor: z.string().optional(),
});

export const diffQuery = z.object({ against: z.string().optional() });

export const AUDIT_PAGE_LIMIT = { default: 50, max: 1000 } as const;

const NAME_MESSAGE = "must be a name of 1-400 characters";
const auditName = z
  .string()
  .min(1, NAME_MESSAGE)
  .max(400, NAME_MESSAGE)
  .refine((v) => textProblem(v) === null, NAME_MESSAGE);

const auditFilter = {
  actor: auditName.optional(),
  action: z.enum(AUDIT_ACTIONS, `must be one of ${AUDIT_ACTIONS.join(", ")}`).optional(),
  since: instant("since").optional(),
  until: instant("until").optional(),
  limit: pageSize(AUDIT_PAGE_LIMIT, `must be a whole number from 1 to ${AUDIT_PAGE_LIMIT.max}`),
  cursor: z.string().optional(),
};

/** GET /me/audit: the caller's own events. */
export const myAuditQuery = z.object(auditFilter);

/** GET /audit: the workspace's events, as a page or (ndjson) all of them. */
const { actor, ...filter } = auditFilter;
export const auditQuery = z.object({
  actor,
  subject: auditName.optional(),
  ...filter,
  format: z.enum(["json", "ndjson"], 'must be "json" or "ndjson"').default("json"),
});

export const usageQuery = z.object({
  since: z.iso.date().optional(),
  until: z.iso.date().optional(),
});

export const USAGE_SORTS = ["cost", "tokens", "subject"] as const;
export const workspaceUsageQuery = usageQuery.extend({
  sort: z.enum(USAGE_SORTS, 'must be "cost", "tokens" or "subject"').default("cost"),
});

/** PUT /teams/:team. */
export const teamBodySchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(MAX_TEAM_NAME_LENGTH)
    .refine((v) => textProblem(v) === null, "must be valid text")
    .describe("Display name"),
  members: z
    .array(
      z.string().superRefine((user, ctx) => {
        const problem = nameProblem(user, "user");
        if (problem)
          ctx.addIssue({ code: "custom", message: `"${user}" is not a usable user id: it ${problem}` });
      }),
    )
    .max(MAX_TEAM_MEMBERS)
    .describe("User ids of active members of the workspace; the team's whole membership"),
});

/** PUT /members/:user: the member's address (null unties it; absent leaves it as it is). */
export const memberBodySchema = z.strictObject({
  email: z
    .string()
    .max(320)
    .refine((v) => textProblem(v) === null && identifier("email", v) !== null, "must be an email address")
    .transform((v) => identifier("email", v)!.value)
    .nullable()
    .optional()
    .describe(
      "The member's address: people recognise it as theirs in every channel (their memory never counts " +
        "them among their own key people); null unties it",
    ),
});

/** POST …/memory/statements/:id/dismiss. */
export const dismissBodySchema = z.object({
  reason: z
    .string()
    .trim()
    .max(MAX_DISMISSAL_REASON_CHARS)
    .refine((v) => textProblem(v) === null, "must be valid text")
    .optional()
    .describe("Why the statement is wrong, in the subject's words (later runs are shown it)"),
});

/** POST /me/ingest-address. */
export const ingestAddressBodySchema = z.strictObject({
  allowedSenders: z
    .array(z.string())
    .max(MAX_ALLOWED_SENDERS)
    .optional()
    .describe(
      "Envelope senders whose mail the address accepts: addresses (ada@example.com) or whole domains " +
        "(@example.com), compared without case. Given, it replaces the address's list (new or existing); " +
        "omitted, a new address accepts only the token's email claim (none without one) and an existing " +
        "one keeps its list",
    ),
});
