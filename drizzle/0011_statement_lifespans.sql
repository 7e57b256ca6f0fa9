-- Statements with a life span, dismissals, and what removed a statement: every statement of a version gets
-- a stable id (kept while it is carried unchanged) and the date a version first held it. For versions written
-- before this migration both are derived from the statement's text and citations within its subject: the
-- same statement in two versions gets one id, first stated when the oldest of them was created. memory_versions.removed logs statements taken out after the version was written
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
WITH "keyed" AS (
  SELECT v.id AS vid, s.n, s.value, v.created_at,
         md5(v.subject_id || chr(31) || coalesce(s.value->>'text', '') || chr(31) || coalesce((
           SELECT string_agg(e, ',' ORDER BY e) FROM jsonb_array_elements_text(s.value->'itemIds') e), '')) AS k
  FROM "memory_versions" v, jsonb_array_elements(v.statements) WITH ORDINALITY AS s(value, n)
  WHERE jsonb_typeof(v.statements) = 'array'
), "ranked" AS (
  SELECT keyed.*, row_number() OVER (PARTITION BY vid, k ORDER BY n) AS dup,
         min(created_at) OVER (PARTITION BY k) AS first_at
  FROM "keyed"
)
UPDATE "memory_versions" v SET "statements" = (
  SELECT jsonb_agg(r.value || jsonb_build_object(
           'id', CASE WHEN r.dup = 1 THEN r.k ELSE r.k || '-' || r.dup::text END,
           'firstStated', to_char(r.first_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         ORDER BY r.n)
  FROM "ranked" r WHERE r.vid = v.id)
WHERE jsonb_typeof(v.statements) = 'array' AND jsonb_array_length(v.statements) > 0;
