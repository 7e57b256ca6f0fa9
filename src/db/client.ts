import { neon, neonConfig } from "@neondatabase/serverless";
import { type SQL, sql } from "drizzle-orm";
import { drizzle as drizzleHttp, type NeonHttpDatabase } from "drizzle-orm/neon-http";
import type { Config } from "../config/config";
import * as schema from "./schema";

export type Db = NeonHttpDatabase<typeof schema>;

type DbConfig = Pick<Config, "databaseUrl" | "neonLocalEndpoint" | "queryTimeoutMs">;

let queryTimeoutMs = 4000;

/**
 * Every HTTP round trip to the database carries its own deadline, so a database that accepts connections
 * but never answers costs a request at most `queryTimeoutMs` (it then fails as database_unavailable).
 * The driver's fetch hook is global; the deadline is the one configuration value it reads, unless the
 * client was made for longer statements (createMaintenanceDb: its fetch options carry `deadlineMs`).
 */
function fetchWithDeadline(
  input: Parameters<typeof fetch>[0],
  init?: RequestInit & { deadlineMs?: number },
): Promise<Response> {
  const { deadlineMs = queryTimeoutMs, ...rest } = init ?? {};
  return fetch(input, { ...rest, signal: AbortSignal.timeout(deadlineMs) });
}

/**
 * How long an index build may take (a model's HNSW index over all its vectors: 22 s for 127,872 vectors of
 * 256 dimensions on two cores with the 256MB of maintenance_work_mem drizzle/0023 sets, 87 s with 64MB).
 * Only queue consumers and cron triggers build indexes, and they may run for 15 minutes.
 */
export const INDEX_BUILD_DEADLINE_MS = 10 * 60_000;

/**
 * The database's own deadline for a transaction's statements, the same as the worker's: first in a batch
 * whose statements can run long (search), so the database stops them once the worker stopped waiting
 * instead of running on beside the next requests.
 */
export function statementDeadline(): SQL {
  return sql.raw(`set local statement_timeout = ${Math.max(1, Math.trunc(queryTimeoutMs))}`);
}

/**
 * A search statement's setting (SET LOCAL): no JIT compilation. Past jit_above_cost (a common word and a
 * common person at 100,000 items, or a vector search's plan not taken) compiling took 25-30 ms of a
 * statement that runs in 100-300 ms, and 0.5 s of a 0.6 s vector search.
 */
export const NO_JIT = sql.raw("set local jit = off");

/**
 * One statement after the database's deadline and its own settings (SET LOCAL), in one batch: one
 * transaction, one round trip. Answers the statement's rows.
 */
export async function runWithDeadline(
  db: Db,
  statement: SQL,
  settings: SQL[] = [],
): Promise<Record<string, unknown>[]> {
  const statements = [statementDeadline(), ...settings, statement].map((s) => db.execute(s));
  const results = await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
  return (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
}

/**
 * Points the Neon driver at the local stand-in. Only ever called when NEON_LOCAL_ENDPOINT is
 * explicitly configured; production leaves the driver's defaults (Neon's own endpoints).
 */
export function useLocalEndpoint(endpoint: string): void {
  const base = new URL(endpoint);
  neonConfig.fetchEndpoint = `${base.origin}/sql`;
  neonConfig.wsProxy = () => `${base.host}/v1`;
  neonConfig.useSecureWebSocket = base.protocol === "https:";
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/** HTTP mode: one round trip per query or batch (a batch is one transaction). The default for everything. */
export function createDb(config: DbConfig): Db {
  configureDriver(config);
  return drizzleHttp({ client: neon(config.databaseUrl), schema });
}

/** The same database for statements that outlast the request deadline: index builds (INDEX_BUILD_DEADLINE_MS). */
export function createMaintenanceDb(config: DbConfig): Db {
  configureDriver(config);
  const fetchOptions = { deadlineMs: INDEX_BUILD_DEADLINE_MS };
  return drizzleHttp({ client: neon(config.databaseUrl, { fetchOptions }), schema });
}

/** The driver's global settings: the local endpoint when configured, the deadline's fetch hook. */
function configureDriver(config: DbConfig): void {
  if (config.neonLocalEndpoint) useLocalEndpoint(config.neonLocalEndpoint);
  queryTimeoutMs = config.queryTimeoutMs;
  neonConfig.fetchFunction = fetchWithDeadline;
}
