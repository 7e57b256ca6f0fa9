/** The embedded default database: PGlite (Postgres in WASM) served over the wire protocol on a TCP port. */
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { lockDataDir } from "./data-dir-lock";

/**
 * PGlite is one backend multiplexed over every socket connection: extended-protocol messages of two
 * connections interleave ("unnamed prepared statement does not exist"), so clients in front of it must
 * send one query at a time. The Neon stand-in uses this many connections to it.
 */
export const EMBEDDED_MAX_CLIENT_CONNECTIONS = 1;

export interface EmbeddedPostgres {
  /** postgres:// URL of the socket server. */
  url: string;
  close(): Promise<void>;
}

/** `dataDir` keeps data across restarts; omit it for an in-memory database (tests). */
export async function startEmbeddedPostgres(
  options: { dataDir?: string; port?: number } = {},
): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const lock = options.dataDir ? lockDataDir(options.dataDir) : null;
  // pg_trgm backs the search's people filter (drizzle/0007); vector the item chunks' embeddings (drizzle/0009).
  // Loading an extension only makes CREATE EXTENSION possible: the migrations create them.
  const extensions = { pg_trgm, vector };
  const db = await PGlite.create(
    options.dataDir ? { dataDir: options.dataDir, extensions } : { extensions },
  ).catch((err: unknown) => {
    lock?.release();
    throw err;
  });
  const server = new PGLiteSocketServer({
    db,
    host: "127.0.0.1",
    port: options.port ?? 0,
    maxConnections: 20,
  });
  await server.start();
  const address = server.getServerConn();
  const port = Number(address.split(":").pop());
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    close: async () => {
      await server.stop();
      await db.close();
      lock?.release();
    },
  };
}
