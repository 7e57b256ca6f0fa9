/**
 * The item as every writer sends it (POST /items, MCP `remember`, inbound email, the importers, the demo
 * fixtures): one zod schema. `ItemRecord` is its wire shape (occurredAt an ISO 8601 string), `ItemInput`
 * what it parses to (occurredAt a Date), the shape the store takes.
 */
import { z } from "zod";
import { isStorableInstant, STORABLE_RANGE } from "./instants";
import { itemPeopleSchema } from "./people/model";
import { type JsonBounds, jsonProblem, textProblem } from "./safe-text";

export const ITEM_KINDS = [
  "email",
  "message",
  "task",
  "doc",
  "call",
  "event",
  "file",
  "pull_request",
  "contact",
  "note",
] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** Bytes of one request body, and characters of one item's body. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Items one POST /items may carry (the clients split larger batches by this and MAX_BODY_BYTES). */
export const MAX_ITEMS_PER_REQUEST = 500;
export const MAX_PARTICIPANTS = 500;
/** Emails and handles one item's structured `people` may name in all. */
export const MAX_ITEM_IDENTIFIERS = 2000;
export const MAX_SHARE_TARGETS_PER_ITEM = 100;
const MAX_SHARE_TARGET_LENGTH = 255;
export const METADATA_BOUNDS: JsonBounds = { maxDepth: 32, maxNodes: 10_000, maxStringLength: 100_000 };
const MAX_METADATA_CHARS = 256 * 1024;

/** Text Postgres can hold: no NUL, no lone surrogates. */
export const safeString = () =>
  z.string().superRefine((value, ctx) => {
    const problem = textProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
const text = (max: number) => safeString().trim().min(1, "must not be empty").max(max);
const optionalText = (max: number) =>
  safeString()
    .max(max)
    .nullish()
    .transform((v) => (v == null || v.trim() === "" ? undefined : v))
    .optional();
export const isoDateTime = z.iso.datetime({
  offset: true,
  error: "must be an ISO 8601 date-time with a time zone",
});
export const storableInstant = (input: z.ZodType<string, string>) =>
  input.transform((v) => new Date(v)).refine(isStorableInstant, `must be ${STORABLE_RANGE}`);
export const itemKindSchema = z.enum(ITEM_KINDS, { error: `must be one of ${ITEM_KINDS.join(", ")}` });

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
  kind: itemKindSchema,
  title: optionalText(1000),
  body: safeString().max(MAX_BODY_BYTES),
  author: optionalText(500),
  participants: z.array(text(500)).max(MAX_PARTICIPANTS).optional(),
  /** Who the item is by, to and about, by their accounts (role, name, email, handles): docs/people.md. */
  // Bounded as a whole too: one item names at most MAX_ITEM_IDENTIFIERS emails and handles.
  people: itemPeopleSchema
    .refine(
      (people) =>
        people.reduce((n, p) => n + (p.email ? 1 : 0) + (p.handles?.length ?? 0), 0) <= MAX_ITEM_IDENTIFIERS,
      `must name at most ${MAX_ITEM_IDENTIFIERS} identifiers (emails and handles) in all`,
    )
    .optional(),
  occurredAt: storableInstant(isoDateTime),
  url: safeString()
    .pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }))
    .pipe(z.string().max(2000))
    .nullish()
    .transform((v) => v ?? undefined)
    .optional(),
  metadata: metadataSchema.optional(),
  // Names are never trimmed ("pia " is not "pia"): the store checks each target by the one name rule
  // (domain/workspaces.ts) together with whether the workspace knows it, and names every bad one.
  sharedWith: z
    .array(safeString().min(1, "must not be empty").max(MAX_SHARE_TARGET_LENGTH))
    .max(MAX_SHARE_TARGETS_PER_ITEM)
    .optional(),
  links: z.array(linkSchema).max(200).optional(),
});

/** One item as a writer sends it (occurredAt an ISO 8601 string with zone). */
export type ItemRecord = z.input<typeof itemInputSchema>;
/** One item as the store takes it: validated, occurredAt a Date. */
export type ItemInput = z.output<typeof itemInputSchema>;
export type ItemLinkInput = NonNullable<ItemInput["links"]>[number];
