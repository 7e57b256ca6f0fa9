/** Imports through the service: the import and its uploaded file's pieces (drizzle/0016). */

import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { IMPORT_STATUSES } from "../import/import-jobs";
import { timestamptz } from "./schema-columns";

const bytea = customType<{ data: Uint8Array }>({ dataType: () => "bytea" });

/**
 * Imports through the service (POST /imports): the uploaded file's import, its status and its summary so far
 * (`summary.records` is how far the file was read and committed); the file waits in importChunks.
 */
export const imports = pgTable(
  "imports",
  {
    id: uuid("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    ownerKey: text("owner_key").notNull(),
    format: text("format").notNull(),
    name: text("name").notNull(),
    source: text("source").notNull(),
    modifiedAt: timestamptz("modified_at").notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull().default(0),
    chunks: integer("chunks").notNull().default(0),
    status: text("status", { enum: IMPORT_STATUSES }).notNull().default("uploading"),
    summary: jsonb("summary").$type<Record<string, unknown>>().notNull(),
    failure: text("failure"),
    runs: integer("runs").notNull().default(0),
    leaseUntil: timestamptz("lease_until"),
    createdAt: timestamptz("created_at").notNull(),
    startedAt: timestamptz("started_at"),
    finishedAt: timestamptz("finished_at"),
    updatedAt: timestamptz("updated_at").notNull(),
  },
  (t) => [
    index("imports_owner_idx").on(t.ownerKey, t.createdAt.desc(), t.id.desc()),
    check("imports_status_check", sql`${t.status} in ('uploading', 'queued', 'running', 'done', 'failed')`),
  ],
);

/** An uploaded file in 1 MB pieces, from the upload until its import ends. */
export const importChunks = pgTable(
  "import_chunks",
  {
    importId: uuid("import_id")
      .notNull()
      .references(() => imports.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    data: bytea("data").notNull(),
  },
  (t) => [primaryKey({ name: "import_chunks_pk", columns: [t.importId, t.seq] })],
);
