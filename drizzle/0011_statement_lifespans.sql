-- Statements with a life span, dismissals, and what removed a statement: every statement of a version gets
-- a stable id (kept while it is carried unchanged) and the date a version first held it; versions written
-- before this migration get an id of their own per statement and their creation time (their history before
-- is not reconstructed). memory_versions.removed logs statements taken out after the version was written
-- (redacted, dismissed); memory_runs.superseded lists what the judge found superseded by newer items.
CREATE TABLE "memory_dismissals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"subject_id" text NOT NULL,
	"statement_id" text NOT NULL,
	"section" text NOT NULL,
	"text" text NOT NULL,
	"cited_item_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"reason" text,
	"version_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "memory_runs" ADD COLUMN "superseded" jsonb;--> statement-breakpoint
ALTER TABLE "memory_versions" ADD COLUMN "removed" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "memory_dismissals_subject_idx" ON "memory_dismissals" USING btree ("subject_id","seq");--> statement-breakpoint
CREATE INDEX "memory_dismissals_cited_idx" ON "memory_dismissals" USING gin ("cited_item_ids");--> statement-breakpoint
UPDATE "memory_versions" v SET "statements" = coalesce((
  SELECT jsonb_agg(s.value || jsonb_build_object(
           'id', md5(v.id::text || ':' || s.n::text),
           'firstStated', to_char(v.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         ORDER BY s.n)
  FROM jsonb_array_elements(v.statements) WITH ORDINALITY AS s(value, n)
), '[]'::jsonb)
WHERE jsonb_typeof(v.statements) = 'array';
