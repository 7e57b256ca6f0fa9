-- Sign-in codes: the one-time, ten-minute codes a sign-in link carries instead of a token. A row keeps the
-- code's SHA-256, whose it is, and the token it vouches for sealed with a key derived from the code (neither
-- the row nor the code alone is a credential); the first use sets used_at and clears sealed_token.
CREATE TABLE "sign_in_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"sealed_token" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "sign_in_codes_owner_idx" ON "sign_in_codes" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "sign_in_codes_expires_idx" ON "sign_in_codes" USING btree ("expires_at");
