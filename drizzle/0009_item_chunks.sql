-- Item chunks and their embeddings (pgvector; Neon has 0.8.0, so nothing newer is used). The embedding
-- column has no dimension so any model fits; its HNSW indexes are partial expression indexes, one per
-- (model, dimensions), created by the code when a model is first used (src/db/item-chunks.ts), e.g.
--   CREATE INDEX ... ON item_chunks USING hnsw ((embedding::vector(384)) vector_cosine_ops)
--     WHERE model = 'workers-ai:@cf/baai/bge-small-en-v1.5' AND dimensions = 384
-- The machine's PostgreSQL gets the extension from scripts/install-pgvector.sh, PGlite from
-- @electric-sql/pglite-pgvector (scripts/lib/embedded-postgres.ts).
CREATE EXTENSION IF NOT EXISTS vector;--> statement-breakpoint
CREATE TABLE "item_chunks" (
	"item_id" uuid NOT NULL,
	"model" text NOT NULL,
	"dimensions" integer NOT NULL,
	"chunk_index" integer NOT NULL,
	"content_hash" text NOT NULL,
	"start_offset" integer NOT NULL,
	"end_offset" integer NOT NULL,
	"snippet" text NOT NULL,
	"embedding" vector NOT NULL,
	"embedded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "item_chunks_item_id_model_dimensions_chunk_index_pk" PRIMARY KEY("item_id","model","dimensions","chunk_index"),
	CONSTRAINT "item_chunks_dimensions_check" CHECK (vector_dims("item_chunks"."embedding") = "item_chunks"."dimensions"),
	CONSTRAINT "item_chunks_span_check" CHECK ("item_chunks"."chunk_index" >= 0 and "item_chunks"."start_offset" >= 0 and "item_chunks"."end_offset" >= "item_chunks"."start_offset")
);
--> statement-breakpoint
ALTER TABLE "item_chunks" ADD CONSTRAINT "item_chunks_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;