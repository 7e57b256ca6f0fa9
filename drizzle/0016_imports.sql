-- Imports through the service (POST /imports): one row per uploaded export file, and the file itself in 1 MB
-- chunks until its import ends (then the chunks are deleted). status: uploading (the request is storing the
-- file), queued, running, done, failed. summary is the importer's summary so far (its `records` is how far the
-- file was read and committed); modified_at is the file's modification time (the date of records without one of
-- their own, as the import command takes it from the file); lease_until keeps a second delivery of the queue message from running the
-- same import at the same time.
CREATE TABLE "imports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"owner_key" text NOT NULL,
	"format" text NOT NULL,
	"name" text NOT NULL,
	"source" text NOT NULL,
	"modified_at" timestamp with time zone NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"chunks" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'uploading' NOT NULL,
	"summary" jsonb NOT NULL,
	"failure" text,
	"runs" integer DEFAULT 0 NOT NULL,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "imports_status_check" CHECK ("status" in ('uploading', 'queued', 'running', 'done', 'failed'))
);
--> statement-breakpoint
CREATE INDEX "imports_owner_idx" ON "imports" USING btree ("owner_key","created_at" DESC,"id" DESC);--> statement-breakpoint
CREATE TABLE "import_chunks" (
	"import_id" uuid NOT NULL REFERENCES "imports"("id") ON DELETE CASCADE,
	"seq" integer NOT NULL,
	"data" bytea NOT NULL,
	CONSTRAINT "import_chunks_pk" PRIMARY KEY ("import_id","seq")
);
