-- Why a subject has no memory yet, in words: the last unsuccessful run's reason, its attempt, and when the
-- agent tries again (status 'retrying' while it backs off). GET /memory answers 503 with them.
ALTER TABLE "memories" ADD COLUMN "error_message" text;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "attempt" integer;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "next_attempt_at" timestamp with time zone;
