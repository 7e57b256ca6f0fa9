-- Items written before people evidence existed have no item_people rows. people_pending marks an item whose
-- people the service has not derived: every item already stored starts pending (a constant default, so adding
-- the column rewrites nothing), items written from now on are not (the upsert writes their people with them),
-- and the daily backfill derives the pending ones in bounded batches and clears the mark.
ALTER TABLE "items" ADD COLUMN "people_pending" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "items" ALTER COLUMN "people_pending" SET DEFAULT false;--> statement-breakpoint
CREATE INDEX "items_people_pending_idx" ON "items" USING btree ("id") WHERE "people_pending";
--> statement-breakpoint
-- A version per owner of their items, bumped by every statement that inserts, changes or deletes any of them
-- (whatever the path: an upsert, a delete, an erase, the backfill): a people read compares it with the version
-- its kept view was resolved at, in one indexed lookup instead of reading the owner's items. It only grows and
-- is read in the reader's snapshot, so a committed change is always seen. Spread over 16 slots by transaction
-- (the version is their sum), so concurrent writes of one owner rarely wait on one row.
CREATE TABLE "item_versions" (
	"owner_id" text NOT NULL,
	"slot" smallint NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "item_versions_pk" PRIMARY KEY("owner_id","slot")
);
--> statement-breakpoint
CREATE FUNCTION "item_versions_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO item_versions AS v (owner_id, slot, version)
	SELECT owner_id, (txid_current() % 16)::smallint, 1 FROM (SELECT DISTINCT owner_id FROM changed) o ORDER BY owner_id
	ON CONFLICT (owner_id, slot) DO UPDATE SET version = v.version + 1;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "items_version_insert" AFTER INSERT ON "items" REFERENCING NEW TABLE AS changed
	FOR EACH STATEMENT EXECUTE FUNCTION item_versions_bump();
--> statement-breakpoint
CREATE TRIGGER "items_version_update" AFTER UPDATE ON "items" REFERENCING NEW TABLE AS changed
	FOR EACH STATEMENT EXECUTE FUNCTION item_versions_bump();
--> statement-breakpoint
CREATE TRIGGER "items_version_delete" AFTER DELETE ON "items" REFERENCING OLD TABLE AS changed
	FOR EACH STATEMENT EXECUTE FUNCTION item_versions_bump();
