-- The text index keys each item by its owner and kind too: its second column becomes ARRAY[owner_id,
-- owner_id || E'\x1f' || kind] (the unit separator is in no owner key and no kind). A keyword search of the
-- viewer's items of some kinds is then one scan of it, as one without a kind filter is (drizzle/0027),
-- instead of the terms' matches ANDed with the (owner_id, kind, …) btree read for the kinds alone, every
-- owner's entries: 46 ms for two kinds at 100,000 items beside 100,000 of other users, against 4 ms in the
-- index (item-rows.ts ownedInTextIndex).
DROP INDEX "items_search_idx";--> statement-breakpoint
CREATE INDEX "items_search_idx" ON "items" USING gin ("search", (ARRAY["owner_id", "owner_id" || E'\x1f' || "kind"]), "people_keys");
--> statement-breakpoint
-- The planner's estimates for the new key column come from the table's statistics: gathered now, not at the next autovacuum.
ANALYZE "items";
