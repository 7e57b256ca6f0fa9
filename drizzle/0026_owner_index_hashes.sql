-- The owner's indexes carry each item's content hash, so the vector channel's exact plan, which reads the
-- current chunks (of the item's current hash) of every visible item in a window or of a kind, takes the
-- hashes from the index instead of reading each item's row (item-chunk-search.ts visibleItems).
DROP INDEX "items_owner_occurred_id_idx";--> statement-breakpoint
CREATE INDEX "items_owner_occurred_id_idx" ON "items" USING btree ("owner_id","occurred_at","id") INCLUDE ("content_hash");--> statement-breakpoint
DROP INDEX "items_owner_kind_occurred_id_idx";--> statement-breakpoint
CREATE INDEX "items_owner_kind_occurred_id_idx" ON "items" USING btree ("owner_id","kind","occurred_at","id") INCLUDE ("content_hash");
