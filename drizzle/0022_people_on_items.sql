-- An item's people move onto its row: what it says about people was one row per (item, identifier, role) in
-- item_people (and item_person_links), inserted into a table of three rows per item and its two indexes on
-- every write; that took about a fifth of ingest's CPU at 100,000 items. Now the item row carries them:
--   sightings     [{k, r, n, b}]: identifier key, role, the name the item gives it, whether the source marked it automated
--   person_links  [{a, b}]: the hard links the item's record makes
--   people_keys   the distinct keys of its sightings, for the person filter (a GIN index, whose pending list
--                 takes a write's keys without touching the index's tree)
-- A speaker label is scoped to its item: its key is stored as `speaker:{item}#<label>` and read as
-- `speaker:<item id>#<label>`. They are written with the item and go with it: nothing to cascade.
ALTER TABLE "items" ADD COLUMN "sightings" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "person_links" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "people_keys" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
UPDATE "items" i SET "sightings" = p.sightings, "people_keys" = p.keys
FROM (
	SELECT item_id, jsonb_agg(jsonb_build_object('k', k, 'r', role, 'n', name, 'b', bot) ORDER BY k, role) AS sightings,
		array_agg(DISTINCT k ORDER BY k) AS keys
	FROM (SELECT item_id, replace(identifier, 'speaker:' || item_id::text || '#', 'speaker:{item}#') AS k, role, name, bot FROM "item_people") x
	GROUP BY item_id
) p
WHERE p.item_id = i.id;--> statement-breakpoint
UPDATE "items" i SET "person_links" = l.links
FROM (
	SELECT item_id, jsonb_agg(jsonb_build_object(
		'a', replace(a, 'speaker:' || item_id::text || '#', 'speaker:{item}#'),
		'b', replace(b, 'speaker:' || item_id::text || '#', 'speaker:{item}#')) ORDER BY a, b) AS links
	FROM "item_person_links" GROUP BY item_id
) l
WHERE l.item_id = i.id;--> statement-breakpoint
DROP TABLE "item_person_links";--> statement-breakpoint
DROP TABLE "item_people";--> statement-breakpoint
CREATE INDEX "items_people_keys_idx" ON "items" USING gin ("people_keys");
