/** Imports through the service: the upload (streamed into the store), its status, the caller's list. */
import { createImport, getImport, listImports } from "../../app/imports";
import * as op from "../../contract/import-operations";
import type { ImportJob } from "../../domain/imports";
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
    const job = await createImport(
      c.get("services"),
      c.get("caller"),
      query,
      c.req.raw.body,
      Number.isFinite(declared) ? declared : null,
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
