-- The people filter: a substring of the author or of one participant, case-insensitive. Trigrams of the
-- names joined by a newline serve it; array_to_string is only STABLE (for arrays in general), but for text
-- it depends on no setting, so the wrapper is declared IMMUTABLE for the index.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE OR REPLACE FUNCTION items_people(author text, participants text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(author, '') || E'\n' || array_to_string(participants, E'\n') $$;--> statement-breakpoint
CREATE INDEX "items_occurred_id_idx" ON "items" USING btree ("occurred_at","id");--> statement-breakpoint
CREATE INDEX "items_people_trgm_idx" ON "items" USING gin (items_people("author", "participants") gin_trgm_ops);
