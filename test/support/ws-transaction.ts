/**
 * WebSocket mode (an interactive transaction over the Neon driver), which the service itself does not use:
 * the tests of the local Neon stand-in exercise it. The pool lives for one unit of work.
 */
import { Pool } from "@neondatabase/serverless";
import { drizzle as drizzleWs, type NeonDatabase } from "drizzle-orm/neon-serverless";
import type { Config } from "../../src/config/config";
import { useLocalEndpoint } from "../../src/db/client";
import * as schema from "../../src/db/schema";

export type TxDb = NeonDatabase<typeof schema>;

type DbConfig = Pick<Config, "databaseUrl" | "neonLocalEndpoint">;

export async function withTransaction<T>(config: DbConfig, fn: (tx: TxDb) => Promise<T>): Promise<T> {
  if (config.neonLocalEndpoint) useLocalEndpoint(config.neonLocalEndpoint);
  const pool = new Pool({ connectionString: config.databaseUrl, max: 1 });
  // An idle client whose socket drops is reported on the pool (the relay drops it as the pool closes);
  // without a listener that is an uncaught error. Errors during the work reject its queries instead.
  let ending = false;
  pool.on("error", (err: Error) => {
    if (!ending)
      console.warn(JSON.stringify({ level: "warn", msg: "db_pool_idle_error", error: err.message }));
  });
  try {
    const db = drizzleWs({ client: pool, schema });
    return await db.transaction((tx) => fn(tx as unknown as TxDb));
  } finally {
    ending = true;
    await pool.end();
  }
}
