-- The audit trail and the usage ledger. audit_events is append-only: every read of memory or items and every
-- access-changing write, one row per event, written once by its id (a retried queue message writes nothing
-- new). Actors and subjects are names inside their workspace (`ada`, `team:payments`), or `erased:<hash>`
-- for a user who erased themselves (audit_erasures keeps only that hash and when, so an event still in flight
-- at the erase is hashed as it lands). usage_daily adds up each subject's runs per day (UTC, the day the run
-- started) and model, written in the same batch as the run's ending; model '' holds the run counts.
CREATE TABLE "audit_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"actor" text NOT NULL,
	"subject" text NOT NULL,
	"action" text NOT NULL,
	"channel" text NOT NULL,
	"client" text,
	"request_id" text NOT NULL,
	"version_id" uuid,
	"item_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"query_hash" text,
	"status" integer NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "audit_events_workspace_idx" ON "audit_events" USING btree ("workspace_id","at" DESC,"id" DESC);--> statement-breakpoint
CREATE INDEX "audit_events_subject_idx" ON "audit_events" USING btree ("workspace_id","subject","at" DESC,"id" DESC);--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at");--> statement-breakpoint
CREATE TABLE "audit_erasures" (
	"hash" text PRIMARY KEY NOT NULL,
	"erased_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"subject_id" text NOT NULL,
	"day" date NOT NULL,
	"model" text NOT NULL,
	"runs" integer DEFAULT 0 NOT NULL,
	"succeeded" integer DEFAULT 0 NOT NULL,
	"rejected" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"budget_exhausted" integer DEFAULT 0 NOT NULL,
	"llm_calls" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_subject_id_day_model_pk" PRIMARY KEY("subject_id","day","model")
);
--> statement-breakpoint
CREATE INDEX "usage_daily_day_idx" ON "usage_daily" USING btree ("day");
