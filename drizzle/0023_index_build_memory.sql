-- A model's HNSW index is built once over all its vectors (a backfill's end, the daily upkeep): with the
-- default maintenance_work_mem (64MB) the graph of 128,000 vectors of 256 dimensions (164MB) stops fitting
-- in memory a third of the way and the rest is inserted on disk, 87 s against 22 s with 256MB (PostgreSQL 15,
-- pgvector 0.8.0, two cores). The setting is this database's default for new sessions; it is only spent by
-- index builds and VACUUM, one at a time here. Lower it for a small compute:
--   ALTER DATABASE <name> SET maintenance_work_mem = '128MB';
-- A role that does not own the database cannot set it: the migration then leaves it as it is (builds are
-- slower, nothing else changes) and says so.
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET maintenance_work_mem = %L', current_database(), '256MB');
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'maintenance_work_mem left as it is (%): large vector index builds will be slower', SQLERRM;
END
$$;
