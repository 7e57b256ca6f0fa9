-- The person filter of search finds a person's items by identifier: without this index it read every
-- item_people row (a sequential scan) on each search with a person.
CREATE INDEX "item_people_identifier_idx" ON "item_people" USING btree ("identifier","item_id");
