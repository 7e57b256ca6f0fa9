CREATE TABLE "item_links" (
	"from_item" uuid NOT NULL,
	"target_source" text NOT NULL,
	"target_external_id" text NOT NULL,
	"to_item" uuid,
	"kind" text DEFAULT 'reference' NOT NULL,
	CONSTRAINT "item_links_from_item_target_source_target_external_id_kind_pk" PRIMARY KEY("from_item","target_source","target_external_id","kind")
);
--> statement-breakpoint
CREATE TABLE "items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" text NOT NULL,
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"kind" text NOT NULL,
	"title" text,
	"body" text NOT NULL,
	"author" text,
	"participants" text[] DEFAULT '{}'::text[] NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"url" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"shared_with" text[] DEFAULT '{}'::text[] NOT NULL,
	"content_hash" text NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('english'::regconfig, coalesce(author, '')), 'B') || setweight(to_tsvector('english'::regconfig, body), 'C')) STORED NOT NULL,
	CONSTRAINT "items_kind_check" CHECK ("items"."kind" in ('email','message','task','doc','call','event','file','pull_request','contact','note'))
);
--> statement-breakpoint
CREATE TABLE "memories" (
	"subject_id" text PRIMARY KEY NOT NULL,
	"current_version_id" uuid,
	"markdown" text,
	"generated_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"status" text DEFAULT 'none' NOT NULL,
	"material_changed_at" timestamp with time zone,
	"error_code" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memory_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subject_id" text NOT NULL,
	"trigger" text NOT NULL,
	"status" text NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"turns" integer DEFAULT 0 NOT NULL,
	"tool_calls" integer DEFAULT 0 NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"usage" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"verdict" jsonb,
	"outcome" text,
	"error_code" text,
	"error_message" text,
	"version_id" uuid
);
--> statement-breakpoint
CREATE TABLE "memory_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subject_id" text NOT NULL,
	"markdown" text NOT NULL,
	"statements" jsonb NOT NULL,
	"cited_item_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"generator_model" text NOT NULL,
	"judge_model" text NOT NULL,
	"verdict" jsonb NOT NULL,
	"run_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"redacted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "item_links" ADD CONSTRAINT "item_links_from_item_items_id_fk" FOREIGN KEY ("from_item") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "item_links" ADD CONSTRAINT "item_links_to_item_items_id_fk" FOREIGN KEY ("to_item") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "item_links_to_item_idx" ON "item_links" USING btree ("to_item");--> statement-breakpoint
CREATE UNIQUE INDEX "items_owner_source_external_key" ON "items" USING btree ("owner_id","source","external_id");--> statement-breakpoint
CREATE INDEX "items_owner_occurred_idx" ON "items" USING btree ("owner_id","occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "items_shared_with_idx" ON "items" USING gin ("shared_with");--> statement-breakpoint
CREATE INDEX "items_search_idx" ON "items" USING gin ("search");--> statement-breakpoint
CREATE INDEX "memories_freshness_idx" ON "memories" USING btree ("generated_at","subject_id");--> statement-breakpoint
CREATE INDEX "memory_runs_subject_idx" ON "memory_runs" USING btree ("subject_id","queued_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "memory_versions_subject_idx" ON "memory_versions" USING btree ("subject_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "memory_versions_cited_idx" ON "memory_versions" USING gin ("cited_item_ids");