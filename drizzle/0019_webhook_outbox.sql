-- The webhooks' outbox: an event is written here in the same transaction as the change it announces (or right
-- after it), and only for a workspace with an enabled endpoint subscribed to its type. A sender hands due rows to
-- the webhooks queue and deletes them once the queue took them; a refused send leaves the row for a later attempt
-- (next_attempt_at, growing delays), so an event is never lost to a queue that was down. A claim moves
-- next_attempt_at forward by a lease, so two senders do not hand over the same row at once; next_attempt_at null
-- means the sender gave up (last_error says why).
CREATE TABLE "webhook_outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"event_type" text NOT NULL,
	"payload" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "webhook_outbox_due_idx" ON "webhook_outbox" USING btree ("next_attempt_at") WHERE "next_attempt_at" IS NOT NULL;--> statement-breakpoint
-- A delivery is claimed before it is sent (until claimed_until), so a redelivered or duplicated queue message
-- cannot send it a second time while, or after, another one does.
ALTER TABLE "webhook_deliveries" ADD COLUMN "claimed_until" timestamp with time zone;
