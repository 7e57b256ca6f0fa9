-- People: what each item says about the people in it, and the workspace's corrections.
-- item_people holds one row per (item, identifier, role) the item names: the identifier (`email:ada@acme.com`,
-- `slack:T1/U2`, `github:ada`, `phone:+44…`, `speaker:<item id>#<label>`, `user:<id>`) and the name the item
-- gives it (and whether the source marked the account automated). item_person_links holds the hard links one item's record makes (a Slack profile's email, a vCard's
-- several addresses). Both are written with the item in one transaction and go with it (ON DELETE CASCADE), so
-- a delete or an erase removes them at once; what a viewer is shown is read through the items they may see.
CREATE TABLE "item_people" (
	"item_id" uuid NOT NULL REFERENCES "items"("id") ON DELETE CASCADE,
	"identifier" text NOT NULL,
	"role" text NOT NULL,
	"name" text,
	"bot" boolean DEFAULT false NOT NULL,
	CONSTRAINT "item_people_pk" PRIMARY KEY("item_id","identifier","role")
);
--> statement-breakpoint
CREATE TABLE "item_person_links" (
	"item_id" uuid NOT NULL REFERENCES "items"("id") ON DELETE CASCADE,
	"a" text NOT NULL,
	"b" text NOT NULL,
	CONSTRAINT "item_person_links_pk" PRIMARY KEY("item_id","a","b")
);
--> statement-breakpoint
-- A member's corrections: merge (a and b are one person), split (a leaves its person), distinct (a and b are
-- never one person). Withdrawn corrections keep their row with withdrawn_at set.
CREATE TABLE "person_corrections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"a" text NOT NULL,
	"b" text,
	"author_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"withdrawn_at" timestamp with time zone,
	CONSTRAINT "person_corrections_kind_check" CHECK ("kind" in ('merge','split','distinct'))
);
--> statement-breakpoint
CREATE INDEX "person_corrections_workspace_idx" ON "person_corrections" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
-- A member's address as an admin set it (PUT /members/:user): ties user:<id> to email:<address>.
ALTER TABLE "workspace_members" ADD COLUMN "email" text;
