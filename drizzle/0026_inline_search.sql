-- Each item's tsvector is kept in its row (STORAGE MAIN) instead of out of line in TOAST, where it went as the
-- largest value of most rows (about 2 kB at 1.5 kB of body): a keyword search reads the tsvectors of its
-- candidates, and the text index's recheck of a phrase reads those of every item holding the phrase's words,
-- each one a TOAST lookup before. The body, when a row is too large, goes out of line instead. Rows written
-- before this migration keep their TOASTed tsvector until they are written again (VACUUM FULL items moves
-- them all at once).
ALTER TABLE "items" ALTER COLUMN "search" SET STORAGE MAIN;--> statement-breakpoint
-- The owner's indexes carry each item's content hash, so the vector channel's exact plan, which reads the
-- current chunks (of the item's current hash) of every visible item in a window or of a kind, takes the
-- hashes from the index instead of reading each item's row (item-chunk-search.ts visibleItems).
DROP INDEX "items_owner_occurred_id_idx";--> statement-breakpoint
CREATE INDEX "items_owner_occurred_id_idx" ON "items" USING btree ("owner_id","occurred_at","id") INCLUDE ("content_hash");--> statement-breakpoint
DROP INDEX "items_owner_kind_occurred_id_idx";--> statement-breakpoint
CREATE INDEX "items_owner_kind_occurred_id_idx" ON "items" USING btree ("owner_id","kind","occurred_at","id") INCLUDE ("content_hash");
