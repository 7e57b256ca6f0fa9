CREATE TABLE "sweep_cursors" (
	"name" text PRIMARY KEY NOT NULL,
	"after_key" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
