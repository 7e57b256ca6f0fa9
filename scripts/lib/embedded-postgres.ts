/** The embedded default database: PGlite (Postgres in WASM) served over the wire protocol on a TCP port. */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedPostgres {
  /** postgres:// URL of the socket server. */
  url: string;
  close(): Promise<void>;
}

/** `dataDir` keeps data across restarts; omit it for an in-memory database (tests). */
export async function startEmbeddedPostgres(
  options: { dataDir?: string; port?: number } = {},
): Promise<EmbeddedPostgres> {
  const db = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {});
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
    },
  };
}
