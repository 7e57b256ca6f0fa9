-- The text index also keys each item by its owner (a second column, ARRAY[owner_id], with the built-in array
-- operator class: no extension), so a keyword search of one viewer's items is one scan of it that intersects the
-- query's terms with the owner's entry, instead of the terms' matches (every owner's) ANDed with a bitmap of
-- all the owner's items from a btree: at 100,000 items of one owner that bitmap alone took 14-23 ms of every
-- search through the text index (keyword-ranking.ts ownedMatching). Queries on the tsvector alone use it as
-- before.
DROP INDEX "items_search_idx";--> statement-breakpoint
CREATE INDEX "items_search_idx" ON "items" USING gin ("search", (ARRAY["owner_id"]));
