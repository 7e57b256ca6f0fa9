/**
 * Imports through the service (items:write): upload one export file, the same formats and readers as the
 * import command; it is read off the request path, and its status and summary are polled.
 */
import { z } from "zod";
import { IMPORT_FORMATS, IMPORTS_LISTED } from "../app/imports";
import { parseInstant } from "../app/statements";
import { safeString } from "../domain/item-schema";
import { IMPORT_STATUSES, MAX_IMPORT_BYTES } from "../import/import-jobs";
import { errorBody } from "./answers";
import { type Answer, operation } from "./operation";
import { idParams } from "./requests";

const refusal = (description: string): Answer => ({ description, schema: errorBody });
const dateTime = z.iso.datetime({ offset: true });
const MB = MAX_IMPORT_BYTES / 1024 / 1024;

export const importResponse = z.object({
  id: z.uuid(),
  format: z.enum(IMPORT_FORMATS as [string, ...string[]]),
  name: z.string().describe("The uploaded file's name"),
  source: z.string().describe("The items' source"),
  modifiedAt: dateTime.describe("The file's modification time, as given (else the time of the upload)"),
  bytes: z.number().int(),
  status: z
    .enum(IMPORT_STATUSES)
    .describe("uploading, queued, running (records counts how far it got), done, or failed (see failure)"),
  summary: z.object({
    records: z.number().int().describe("Records read from the file and accounted for so far"),
    items: z.number().int().describe("Records that became items to store"),
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    skipped: z.number().int().describe("Records deliberately not imported (see skippedReasons)"),
    rejected: z.number().int().describe("Items the service refused (each also in errors, with why)"),
    skippedReasons: z.record(z.string(), z.number().int()),
    errors: z
      .array(z.object({ file: z.string(), position: z.string(), message: z.string() }))
      .describe("Records that could not be read or stored (the first 1,000)"),
  }),
  failure: z.string().nullable().describe("Why the import failed; null otherwise"),
  runs: z.number().int().describe("Runs of the import's queue consumer so far"),
  createdAt: dateTime,
  startedAt: dateTime.nullable(),
  finishedAt: dateTime.nullable(),
  updatedAt: dateTime,
});

const importQuery = z.object({
  format: z.enum(IMPORT_FORMATS as [string, ...string[]]).optional(),
  name: safeString().min(1).max(300).optional(),
  source: safeString().trim().min(1).max(100).optional(),
  modifiedAt: z
    .string()
    .meta({ format: "date-time" })
    .transform((value) => parseInstant(value, "modifiedAt"))
    .optional(),
});

export const createImport = operation({
  id: "createImport",
  method: "POST",
  path: "/imports",
  access: "items:write",
  summary: `Upload one export file (up to ${MB} MB) to import as the caller's items; read off the request path`,
  description:
    "The body is the file itself (or a multipart/form-data form whose field `file` is the file, its name " +
    "the default `name`). It is stored, then read by the import command's own readers in a queue " +
    "consumer, in batches; poll GET /imports/{id} for the status and the summary. Items get the same " +
    "externalIds as with the command, so importing a file again writes nothing new.",
  query: importQuery,
  docs: {
    format: `One of ${IMPORT_FORMATS.join(", ")}; by default told from the name's ending (.zip: slack)`,
    name: "The file's name (reports name it; its ending tells the format when format is absent)",
    source: "The items' source (default: the format's name)",
    modifiedAt:
      "The file's modification time (ISO 8601): the date of records without one of their own (a vCard " +
      "without REV, a transcript without a date in its name), as the import command takes it from the " +
      "file; give it so a second upload of the same file changes nothing (default: the time of the upload)",
  },
  body: {
    schema: z.string().meta({ format: "binary", description: "The export file's bytes" }),
    required: true,
    maxBytes: MAX_IMPORT_BYTES,
    mediaType: "application/octet-stream",
  },
  answers: {
    202: { description: "Stored and queued", schema: importResponse },
    400: refusal("No body, an empty file, an unknown format, or a name whose format cannot be told"),
    413: refusal(`The file is larger than ${MB} MB`),
  },
  audit: ["import.create"],
});

export const listImports = operation({
  id: "listImports",
  method: "GET",
  path: "/imports",
  access: "items:write",
  summary: `The caller's imports, newest first (the last ${IMPORTS_LISTED})`,
  answers: { 200: { description: "Imports", schema: z.object({ imports: z.array(importResponse) }) } },
});

export const getImport = operation({
  id: "getImport",
  method: "GET",
  path: "/imports/{id}",
  access: "items:write",
  summary: "One import of the caller's: its status, how far it got, and its summary",
  params: idParams,
  docs: { id: "The import's id" },
  answers: {
    200: { description: "The import", schema: importResponse },
    404: refusal("No import of the caller's by that id"),
  },
});

export const importOperations = [createImport, listImports, getImport] as const;
