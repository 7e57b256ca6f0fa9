/** Request validation for the /items routes (zod), and its translation into the error model. */
import { z } from "zod";
import { AppError } from "../domain/errors";
import {
  ITEM_KINDS,
  type ItemInput,
  type ItemKind,
  type ItemProblem,
  repeatedKeys,
  type SearchQuery,
} from "../domain/items";

export const MAX_ITEMS_PER_REQUEST = 500;
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Postgres text cannot hold NUL characters. */
const noNul = (v: string) => !v.includes("\u0000");
const NUL_MESSAGE = "must not contain NUL characters";
const text = (max: number) =>
  z.string().trim().min(1, "must not be empty").max(max).refine(noNul, NUL_MESSAGE);
const optionalText = (max: number) =>
  z
    .string()
    .max(max)
    .refine(noNul, NUL_MESSAGE)
    .nullish()
    .transform((v) => (v == null || v.trim() === "" ? undefined : v));
const isoDateTime = z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time with a time zone" });

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
  body: z.string().max(MAX_BODY_BYTES).refine(noNul, NUL_MESSAGE),
  author: optionalText(500),
  participants: z.array(text(500)).max(500).optional(),
  occurredAt: isoDateTime.transform((v) => new Date(v)),
  url: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(2000)
    .nullish()
    .transform((v) => v ?? undefined),
  metadata: z
    .record(z.string(), z.unknown())
    .refine((m) => !JSON.stringify(m).includes("\\u0000"), NUL_MESSAGE)
    .optional(),
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
  problems.push(...repeatedKeys(parsed));
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

const listParam = (values: string[]) =>
  values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");

const dateParam = z.union([isoDateTime, z.iso.date()]).transform((v) => new Date(v));

export const searchSchema = z.object({
  q: z.string().max(500, "must be at most 500 characters").optional(),
  kinds: z.array(z.enum(ITEM_KINDS, { error: `must be one of ${ITEM_KINDS.join(", ")}` })).max(20),
  since: dateParam.optional(),
  until: dateParam.optional(),
  people: z.array(z.string().max(200)).max(20),
  limit: z.coerce.number().int("must be an integer").min(1).max(100).default(20),
  cursor: z.string().max(500).optional(),
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
