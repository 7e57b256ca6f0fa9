/** Request validation for the /items routes (zod), and its translation into the error model. */
import { z } from "zod";
import { AppError } from "../domain/errors";
import { isStorableInstant, STORABLE_RANGE } from "../domain/instants";
import {
  ITEM_KINDS,
  type ItemInput,
  type ItemKind,
  type ItemProblem,
  repeatedKeys,
  type SearchQuery,
} from "../domain/items";
import { type JsonBounds, jsonProblem, textProblem } from "./safe-text";

export const MAX_ITEMS_PER_REQUEST = 500;
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Distinct users one request may share with: every one of them gets a refresh trigger. */
export const MAX_SHARE_TARGETS_PER_REQUEST = 1000;
export const METADATA_BOUNDS: JsonBounds = { maxDepth: 32, maxNodes: 10_000, maxStringLength: 100_000 };
const MAX_METADATA_CHARS = 256 * 1024;

/** Text Postgres can hold: no NUL, no lone surrogates. */
const safeString = () =>
  z.string().superRefine((value, ctx) => {
    const problem = textProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
const text = (max: number) => safeString().trim().min(1, "must not be empty").max(max);
const optionalText = (max: number) =>
  safeString()
    .max(max)
    .nullish()
    .transform((v) => (v == null || v.trim() === "" ? undefined : v));
const isoDateTime = z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time with a time zone" });
const storableInstant = (input: z.ZodType<string>) =>
  input.transform((v) => new Date(v)).refine(isStorableInstant, `must be ${STORABLE_RANGE}`);

const metadataSchema = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const problem = jsonProblem(value, METADATA_BOUNDS);
  if (problem) {
    ctx.addIssue({ code: "custom", message: problem.message, path: problem.path.split(".") });
  } else if (JSON.stringify(value).length > MAX_METADATA_CHARS) {
    ctx.addIssue({ code: "custom", message: `must be at most ${MAX_METADATA_CHARS} characters as JSON` });
  }
});

const linkSchema = z.strictObject({
  source: text(100).optional(),
  externalId: text(500),
  kind: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,31}$/, "must be a lowercase word such as reference, reply or mention")
    .optional(),
});

export const itemInputSchema = z.strictObject({
  source: text(100),
  externalId: text(500),
  kind: z.enum(ITEM_KINDS, { error: `must be one of ${ITEM_KINDS.join(", ")}` }),
  title: optionalText(1000),
  body: safeString().max(MAX_BODY_BYTES),
  author: optionalText(500),
  participants: z.array(text(500)).max(500).optional(),
  occurredAt: storableInstant(isoDateTime),
  url: safeString()
    .pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }))
    .pipe(z.string().max(2000))
    .nullish()
    .transform((v) => v ?? undefined),
  metadata: metadataSchema.optional(),
  sharedWith: z.array(text(255)).max(100).optional(),
  links: z.array(linkSchema).max(200).optional(),
});

/**
 * Validates a POST /items body. A body that is not `{ items: [...] }` is 400; too many items 413;
 * any bad item makes the whole request 422 with every problem listed as { index, path, message },
 * including a (source, externalId) repeated inside the batch.
 */
export function parseIngestBody(body: unknown): ItemInput[] {
  if (typeof body !== "object" || body === null || !Array.isArray((body as { items?: unknown }).items)) {
    throw new AppError("bad_request", 'The body must be a JSON object { "items": [ ... ] }');
  }
  const raw = (body as { items: unknown[] }).items;
  if (raw.length > MAX_ITEMS_PER_REQUEST) {
    throw new AppError("payload_too_large", `At most ${MAX_ITEMS_PER_REQUEST} items per request`);
  }
  const problems: ItemProblem[] = [];
  const parsed: (ItemInput & { index: number })[] = [];
  raw.forEach((entry, index) => {
    const result = itemInputSchema.safeParse(entry);
    if (result.success) parsed.push({ ...result.data, index });
    else {
      for (const issue of result.error.issues) {
        problems.push({ index, path: issue.path.join(".") || "(item)", message: issue.message });
      }
    }
  });
  problems.push(...repeatedKeys(parsed), ...tooManyShareTargets(parsed));
  problems.sort((a, b) => a.index - b.index);
  if (problems.length > 0) {
    throw new AppError(
      "validation_failed",
      `${new Set(problems.map((p) => p.index)).size} item(s) are invalid`,
      {
        details: { items: problems },
      },
    );
  }
  return parsed.map(({ index: _index, ...item }) => item);
}

/** The first item past which the request shares with more than MAX_SHARE_TARGETS_PER_REQUEST users. */
function tooManyShareTargets(items: (ItemInput & { index: number })[]): ItemProblem[] {
  const targets = new Set<string>();
  for (const { index, sharedWith } of items) {
    for (const target of sharedWith ?? []) targets.add(target);
    if (targets.size > MAX_SHARE_TARGETS_PER_REQUEST) {
      const message = `the request shares with more than ${MAX_SHARE_TARGETS_PER_REQUEST} distinct users; send it in smaller requests`;
      return [{ index, path: "sharedWith", message }];
    }
  }
  return [];
}

const listParam = (values: string[]) =>
  values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");

const dateParam = storableInstant(z.union([isoDateTime, z.iso.date()]));

export const searchSchema = z.object({
  q: safeString().max(500, "must be at most 500 characters").optional(),
  kinds: z.array(z.enum(ITEM_KINDS, { error: `must be one of ${ITEM_KINDS.join(", ")}` })).max(20),
  since: dateParam.optional(),
  until: dateParam.optional(),
  people: z.array(safeString().max(200)).max(20),
  limit: z.coerce.number().int("must be an integer").min(1).max(100).default(20),
  cursor: safeString().max(500).optional(),
});

/** Parses GET /items query parameters (kind and people may repeat or be comma-separated); 400 if bad. */
export function parseSearchParams(query: (name: string) => string[] | undefined): SearchQuery {
  const one = (name: string) => query(name)?.at(-1);
  const result = searchSchema.safeParse({
    q: one("q"),
    kinds: listParam(query("kind") ?? []),
    since: one("since"),
    until: one("until"),
    people: listParam(query("people") ?? []),
    limit: one("limit"),
    cursor: one("cursor"),
  });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const param = issue.path[0] === "kinds" ? "kind" : String(issue.path[0] ?? "query");
    throw new AppError("bad_request", `Query parameter "${param}" ${issue.message}`);
  }
  const { since, until } = result.data;
  if (since && until && since >= until) {
    throw new AppError("bad_request", 'Query parameter "since" must be before "until"');
  }
  return { ...result.data, kinds: result.data.kinds as ItemKind[] };
}
