/**
 * Builds the configured embedding model's HNSW index (and, with --drop-others, removes other models'
 * chunks and indexes) straight over a Postgres connection, without the worker's per-query deadline:
 *   DATABASE_URL=postgres://… EMBEDDING_MODEL=workers-ai:@cf/baai/bge-small-en-v1.5 npx tsx scripts/vector-index.ts [--drop-others]
 * For a deploy step that wants the index before the worker's first request. The worker builds it too (queue
 * consumers and the daily upkeep, through createMaintenanceDb's deadline of INDEX_BUILD_DEADLINE_MS).
 */
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import type { Db } from "../src/db/client";
import { dropOtherVectorIndexes, ensureVectorIndex } from "../src/db/item-chunk-index";
import { deleteOtherModelChunks } from "../src/db/item-chunk-writes";
import { OPENAI_EMBEDDING_MODELS } from "../src/embeddings/openai";
import { WORKERS_AI_EMBEDDING_MODELS } from "../src/embeddings/workers-ai";

const dialect = new PgDialect();

export async function main(args: string[], env = process.env): Promise<number> {
  const databaseUrl = env.DATABASE_URL;
  const ref = env.EMBEDDING_MODEL?.trim();
  if (!databaseUrl || !ref || !/^(workers-ai|openai):\S+$/.test(ref)) {
    console.error("Set DATABASE_URL and EMBEDDING_MODEL (workers-ai:<model> or openai:<model>).");
    return 2;
  }
  const at = ref.indexOf(":");
  const [provider, model] = [ref.slice(0, at), ref.slice(at + 1)];
  const known = (provider === "openai" ? OPENAI_EMBEDDING_MODELS : WORKERS_AI_EMBEDDING_MODELS)[model];
  const configured = env.EMBEDDING_DIMENSIONS ? Number(env.EMBEDDING_DIMENSIONS) : undefined;
  const dimensions =
    provider === "workers-ai" ? (known?.dimensions ?? configured) : (configured ?? known?.dimensions);
  if (!dimensions || !Number.isInteger(dimensions)) {
    console.error(`The size of ${ref}'s vectors is not known: set EMBEDDING_DIMENSIONS.`);
    return 2;
  }
  const key = { model: ref, dimensions };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const db = overClient(client);
    const started = Date.now();
    const { name, created } = await ensureVectorIndex(db, key);
    console.log(`${name}: ${created ? `built in ${Date.now() - started} ms` : "already there"}`);
    if (args.includes("--drop-others")) {
      let deleted = 0;
      for (let n = 5000; n === 5000; deleted += n) n = await deleteOtherModelChunks(db, key, 5000);
      const dropped = await dropOtherVectorIndexes(db, key);
      console.log(`deleted ${deleted} chunks of other models; dropped ${dropped.join(", ") || "no index"}`);
    }
    return 0;
  } finally {
    await client.end();
  }
}

/** The part of Db the index functions use (db.execute), over a pg client. */
function overClient(client: pg.Client): Db {
  return {
    execute: async (query: Parameters<Db["execute"]>[0]) => {
      const { sql, params } = dialect.sqlToQuery(query as Parameters<PgDialect["sqlToQuery"]>[0]);
      return client.query(sql, params);
    },
  } as unknown as Db;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
