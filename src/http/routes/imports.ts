/** Imports through the service: the upload (streamed into the store), its status, the caller's list. */
import { createImport, getImport, listImports } from "../../app/imports";
import * as op from "../../contract/import-operations";
import { AppError } from "../../domain/errors";
import { type ImportJob, MAX_IMPORT_BYTES } from "../../import/import-jobs";
import { readBounded } from "../../read-bounded";
import { route } from "../operation-routes";

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const importJson = (job: ImportJob) => ({
  id: job.id,
  format: job.format,
  name: job.name,
  source: job.source,
  modifiedAt: job.modifiedAt.toISOString(),
  bytes: job.bytes,
  status: job.status,
  summary: {
    records: job.progress.records,
    items: job.progress.items,
    created: job.progress.created,
    updated: job.progress.updated,
    unchanged: job.progress.unchanged,
    skipped: job.progress.skipped,
    rejected: job.progress.rejected,
    skippedReasons: job.progress.skippedReasons,
    errors: job.progress.errors,
  },
  failure: job.failure,
  runs: job.runs,
  createdAt: job.createdAt.toISOString(),
  startedAt: iso(job.startedAt),
  finishedAt: iso(job.finishedAt),
  updatedAt: job.updatedAt.toISOString(),
});

export const importRoutes = [
  route(op.createImport, async (c, { query }) => {
    const declared = Number(c.req.header("content-length") ?? Number.NaN);
    const length = Number.isFinite(declared) ? declared : null;
    const upload = /^multipart\/form-data/i.test(c.req.header("content-type") ?? "")
      ? await formUpload(c.req.raw, length)
      : { body: c.req.raw.body, bytes: length, name: undefined };
    const job = await createImport(
      c.get("services"),
      c.get("caller"),
      { ...query, name: query.name ?? upload.name },
      upload.body,
      upload.bytes,
    );
    c.header("Location", `/imports/${job.id}`);
    return c.json(importJson(job), 202);
  }),

  route(op.listImports, async (c) =>
    c.json({ imports: (await listImports(c.get("services"), c.get("caller"))).map(importJson) }),
  ),

  route(op.getImport, async (c, { params }) =>
    c.json(importJson(await getImport(c.get("services"), c.get("caller"), params.id))),
  ),
];

/** What a multipart form's body may add to the file (its boundaries and other fields). */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/**
 * A multipart/form-data upload (a browser form): its `file` field, and that file's name. The form is read
 * whole, within the limit and what its boundaries and other fields add.
 */
async function formUpload(request: Request, length: number | null) {
  const limit = MAX_IMPORT_BYTES + FORM_OVERHEAD_BYTES;
  const tooLarge = () =>
    new AppError("payload_too_large", `The file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);
  if (length !== null && length > limit) throw tooLarge();
  if (!request.body) throw new AppError("bad_request", "The request has no body: send the file as the body");
  const bytes = await readBounded(request.body, limit, { drainLimitBytes: 100 * 1024 * 1024 });
  if (!bytes) throw tooLarge();
  const form = await new Response(bytes, {
    headers: { "content-type": request.headers.get("content-type")! },
  })
    .formData()
    .catch(() => null);
  const file = form?.get("file");
  if (!file || typeof file === "string") {
    throw new AppError("bad_request", 'A form upload needs its file in a field named "file"');
  }
  return { body: file.stream(), bytes: file.size, name: file.name || undefined };
}
