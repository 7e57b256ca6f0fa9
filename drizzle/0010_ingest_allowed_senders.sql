-- The envelope senders an ingest address accepts mail from: addresses (ada@example.com) or domains
-- (@example.com). Addresses issued before this list existed accept no sender until their owner sets one.
ALTER TABLE "ingest_addresses" ADD COLUMN "allowed_senders" text[] DEFAULT '{}'::text[] NOT NULL;
