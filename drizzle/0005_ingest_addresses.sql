CREATE TABLE "ingest_addresses" (
	"token" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "ingest_addresses_active_owner_key" ON "ingest_addresses" USING btree ("owner_id") WHERE "ingest_addresses"."revoked_at" is null;