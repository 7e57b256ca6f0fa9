/**
 * Imports over Postgres: the import row (status, summary so far, the run's lease) and the uploaded file in
 * bytea pieces until the import ends. Pieces travel as base64 text (decode/encode in SQL), so the driver
 * carries them as plain strings. Every read is scoped by the owner's subject key.
 */
import { sql } from "drizzle-orm";
import type { ImportJob, ImportProgress, ImportStatus, ImportStore } from "../import/import-jobs";
import type { Db } from "./client";
import { toDate } from "./item-rows";

type Row = Record<string, unknown>;

const columns = sql`id::text as id, workspace_id, owner_key, format, name, source,
  modified_at::text as modified_at, bytes, chunks, status,
  summary::text as summary, failure, runs, created_at::text as created_at, started_at::text as started_at,
  finished_at::text as finished_at, updated_at::text as updated_at`;

const optionalDate = (value: unknown) =>
  value === null || value === undefined ? null : toDate(String(value));

function toJob(row: Row): ImportJob {
  return {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    ownerKey: String(row.owner_key),
    format: String(row.format),
    name: String(row.name),
    source: String(row.source),
    modifiedAt: toDate(String(row.modified_at)),
    bytes: Number(row.bytes),
    chunks: Number(row.chunks),
    status: String(row.status) as ImportStatus,
    progress: JSON.parse(String(row.summary)) as ImportProgress,
    failure: row.failure === null ? null : String(row.failure),
    runs: Number(row.runs),
    createdAt: toDate(String(row.created_at)),
    startedAt: optionalDate(row.started_at),
    finishedAt: optionalDate(row.finished_at),
    updatedAt: toDate(String(row.updated_at)),
  };
}

const summaryJson = (progress: ImportProgress) => sql`${JSON.stringify(progress)}::jsonb`;

/** Bytes as base64, built in slices (String.fromCharCode takes a bounded number of arguments). */
function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 0x8000) {
    parts.push(String.fromCharCode(...bytes.subarray(i, i + 0x8000)));
  }
  return btoa(parts.join(""));
}

/** Postgres's base64 (lines of 76 characters) back to bytes; atob skips the line breaks. */
function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function createPgImportStore(db: Db): ImportStore {
  return {
    async begin(job, progress, at) {
      await db.execute(sql`
        insert into imports (id, workspace_id, owner_key, format, name, source, modified_at, status, summary,
          created_at, updated_at)
        values (${job.id}::uuid, ${job.workspaceId}, ${job.ownerKey}, ${job.format}, ${job.name}, ${job.source},
          ${job.modifiedAt.toISOString()}, 'uploading', ${summaryJson(progress)}, ${at.toISOString()}, ${at.toISOString()})`);
    },

    async append(id, firstSeq, pieces) {
      if (pieces.length === 0) return;
      const rows = pieces.map(
        (piece, i) => sql`(${id}::uuid, ${firstSeq + i}, decode(${toBase64(piece)}, 'base64'))`,
      );
      await db.execute(
        sql`insert into import_chunks (import_id, seq, data) values ${sql.join(rows, sql`, `)}`,
      );
    },

    async uploaded(id, bytes, chunks, at) {
      await db.execute(sql`
        update imports set status = 'queued', bytes = ${bytes}, chunks = ${chunks}, updated_at = ${at.toISOString()}
        where id = ${id}::uuid and status = 'uploading'`);
    },

    async discard(id) {
      await db.execute(sql`delete from imports where id = ${id}::uuid`);
    },

    async get(ownerKey, id) {
      const found = await db.execute(
        sql`select ${columns} from imports where id = ${id}::uuid and owner_key = ${ownerKey}`,
      );
      const row = found.rows[0];
      return row ? toJob(row) : null;
    },

    async list(ownerKey, limit) {
      const found = await db.execute(sql`
        select ${columns} from imports where owner_key = ${ownerKey}
        order by created_at desc, id desc limit ${limit}`);
      return found.rows.map(toJob);
    },

    async claim(id, at, leaseUntil) {
      const claimed = await db.execute(sql`
        update imports set status = 'running', runs = runs + 1, lease_until = ${leaseUntil.toISOString()},
          started_at = coalesce(started_at, ${at.toISOString()}), updated_at = ${at.toISOString()}
        where id = ${id}::uuid and status in ('queued', 'running')
          and (lease_until is null or lease_until <= ${at.toISOString()})
        returning ${columns}`);
      const row = claimed.rows[0];
      if (row) return { kind: "claimed", job: toJob(row) };
      const found = await db.execute(sql`select status from imports where id = ${id}::uuid`);
      const status = found.rows[0]?.status;
      return status === "queued" || status === "running" ? { kind: "busy" } : { kind: "finished" };
    },

    async running(id) {
      const found = await db.execute(
        sql`select 1 from imports where id = ${id}::uuid and status = 'running'`,
      );
      return found.rows.length > 0;
    },

    async piece(id, seq) {
      const found = await db.execute(sql`
        select encode(data, 'base64') as data from import_chunks where import_id = ${id}::uuid and seq = ${seq}`);
      const row = found.rows[0];
      return row ? fromBase64(String(row.data)) : null;
    },

    async progress(id, progress, at) {
      await db.execute(sql`
        update imports set summary = ${summaryJson(progress)}, updated_at = ${at.toISOString()}
        where id = ${id}::uuid`);
    },

    async release(id, progress, at) {
      await db.execute(sql`
        update imports set summary = ${summaryJson(progress)}, lease_until = null, updated_at = ${at.toISOString()}
        where id = ${id}::uuid`);
    },

    async abandon(id, failure, at) {
      await db.batch([
        db.execute(sql`
          update imports set status = 'failed', failure = ${failure}, lease_until = null,
            finished_at = ${at.toISOString()}, updated_at = ${at.toISOString()}
          where id = ${id}::uuid and status in ('queued', 'running')`),
        db.execute(sql`delete from import_chunks where import_id = ${id}::uuid`),
      ]);
    },

    async finish(id, { status, progress, failure }, at) {
      await db.batch([
        db.execute(sql`
          update imports set status = ${status}, summary = ${summaryJson(progress)}, failure = ${failure},
            lease_until = null, finished_at = ${at.toISOString()}, updated_at = ${at.toISOString()}
          where id = ${id}::uuid and status in ('queued', 'running')`),
        db.execute(sql`delete from import_chunks where import_id = ${id}::uuid`),
      ]);
    },
  };
}
