CREATE TABLE "team_members" (
	"team_key" text NOT NULL,
	"member_key" text NOT NULL,
	CONSTRAINT "team_members_team_key_member_key_pk" PRIMARY KEY("team_key","member_key")
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"team_key" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"team_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_members" (
	"member_key" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"user_id" text NOT NULL,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_team_key_teams_team_key_fk" FOREIGN KEY ("team_key") REFERENCES "public"."teams"("team_key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_member_key_workspace_members_member_key_fk" FOREIGN KEY ("member_key") REFERENCES "public"."workspace_members"("member_key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "team_members_member_idx" ON "team_members" USING btree ("member_key");--> statement-breakpoint
CREATE UNIQUE INDEX "teams_workspace_team_key" ON "teams" USING btree ("workspace_id","team_id");--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_members_workspace_user_key" ON "workspace_members" USING btree ("workspace_id","user_id");--> statement-breakpoint
-- Rows written before workspaces existed belong to the default workspace, whose keys are the plain ids:
-- their owners and sharees become its members, so shares between them stay valid.
INSERT INTO "workspace_members" ("member_key", "workspace_id", "user_id")
SELECT DISTINCT u, 'default', u FROM (
  SELECT "owner_id" AS u FROM "items"
  UNION SELECT unnest("shared_with") FROM "items"
  UNION SELECT "subject_id" FROM "memories"
) AS known
WHERE u NOT LIKE 'team:%' AND u !~ '[\x01-\x1f]'
ON CONFLICT DO NOTHING;
