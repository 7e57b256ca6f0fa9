-- The text index also keys each item by its owner and by the people it names (two more columns: ARRAY[owner_id]
-- and people_keys, both with the built-in array operator class, no extension). A keyword search of one
-- viewer's items, with or without a person filter, is then one scan of it that intersects the query's terms
-- with the owner's entry (and the person's), instead of the terms' matches (every owner's) ANDed with a bitmap
-- of all the owner's items from a btree and one of all the person's items: at 100,000 items of one owner
-- those bitmaps took 14-23 ms and 9 ms of every such search (item-rows.ts ownedInTextIndex). Queries on
-- the tsvector alone use it as before; items_people_keys_idx still serves the person filter without words.
DROP INDEX "items_search_idx";--> statement-breakpoint
CREATE INDEX "items_search_idx" ON "items" USING gin ("search", (ARRAY["owner_id"]), "people_keys");
