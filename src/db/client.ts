import { neon, neonConfig, Pool } from "@neondatabase/serverless";
import { drizzle as drizzleHttp, type NeonHttpDatabase } from "drizzle-orm/neon-http";
import { drizzle as drizzleWs, type NeonDatabase } from "drizzle-orm/neon-serverless";
import type { Config } from "../config/config";
import * as schema from "./schema";

export type Db = NeonHttpDatabase<typeof schema>;
export type TxDb = NeonDatabase<typeof schema>;

type DbConfig = Pick<Config, "databaseUrl" | "neonLocalEndpoint" | "queryTimeoutMs">;

let queryTimeoutMs = 4000;

/**
 * Every HTTP round trip to the database carries its own deadline, so a database that accepts connections
 * but never answers costs a request at most `queryTimeoutMs` (it then fails as database_unavailable).
 * The driver's fetch hook is global; the deadline is the one configuration value it reads.
 */
function fetchWithDeadline(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  return fetch(input, { ...init, signal: AbortSignal.timeout(queryTimeoutMs) });
}

/**
 * Points the Neon driver at the local stand-in. Only ever called when NEON_LOCAL_ENDPOINT is
 * explicitly configured; production leaves the driver's defaults (Neon's own endpoints).
 */
function useLocalEndpoint(endpoint: string): void {
  const base = new URL(endpoint);
  neonConfig.fetchEndpoint = `${base.origin}/sql`;
  neonConfig.wsProxy = () => `${base.host}/v1`;
  neonConfig.useSecureWebSocket = base.protocol === "https:";
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/** HTTP mode: one round trip per query or batch (a batch is one transaction). The default for everything. */
export function createDb(config: DbConfig): Db {
  if (config.neonLocalEndpoint) useLocalEndpoint(config.neonLocalEndpoint);
  queryTimeoutMs = config.queryTimeoutMs;
  neonConfig.fetchFunction = fetchWithDeadline;
  return drizzleHttp({ client: neon(config.databaseUrl), schema });
}

/**
 * WebSocket mode, for the rare interactive transaction. The pool lives for one unit of work:
 * it is created here and ended before returning.
 */
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
