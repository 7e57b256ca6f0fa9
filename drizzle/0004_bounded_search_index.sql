ALTER TABLE "items" drop column "search";--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('english'::regconfig, coalesce(author, '')), 'B') || setweight(to_tsvector('english'::regconfig, left(body, 200000)), 'C')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "items_search_idx" ON "items" USING gin ("search");
