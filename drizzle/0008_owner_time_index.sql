-- Search reads the two branches of the access rule separately: the viewer's own items newest first through
-- this index, items shared with them through items_shared_with_idx. It replaces the per-owner index without
-- the id (the tie-break of every page) and the index over everyone's items by time, which a viewer's
-- newest-first scan had to walk past every other user's recent rows on. Created before the two are dropped.
CREATE INDEX "items_owner_occurred_id_idx" ON "items" USING btree ("owner_id","occurred_at","id");--> statement-breakpoint
DROP INDEX "items_owner_occurred_idx";--> statement-breakpoint
DROP INDEX "items_occurred_id_idx";
