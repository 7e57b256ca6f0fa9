-- A keyword search for a common word within one kind walks the owner's items of that kind newest first and
-- keeps the first matches (keyword-ranking.ts boundedScan): this index gives that walk its order. Without it
-- the walk stepped over every other kind's items, or the search read every match of the word.
CREATE INDEX "items_owner_kind_occurred_id_idx" ON "items" USING btree ("owner_id","kind","occurred_at","id");
