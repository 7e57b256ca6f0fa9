/**
 * What a failed database call means, read from the error the driver and drizzle raise, without ever
 * touching the query's parameters (they hold users' content).
 *
 * drizzle wraps a driver error as `DrizzleQueryError` ("Failed query: <sql> params: <values>") with the
 * driver's error in `cause`; the Neon driver's `NeonDbError` carries the SQLSTATE in `code` and, for a
 * connection failure, the fetch error in `sourceError`.
 */

export interface DatabaseFailure {
  /** The database did not answer (unreachable, timed out, shutting down): worth retrying shortly. */
  unavailable: boolean;
  /** SQLSTATE, when the database answered with an error. */
  sqlstate?: string;
  /** The failing statement's leading words (no parameters), e.g. `insert into "items"`. */
  query?: string;
}

/** SQLSTATE classes that mean "the database cannot serve now", not "this statement is wrong". */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P|58)/;
const UNAVAILABLE_MESSAGE =
  /Error connecting to database|Server error \(HTTP status 5|fetch failed|Network connection lost|socket hang up|ECONNREFUSED|ECONNRESET/i;
const TIMEOUT_NAMES = new Set(["TimeoutError", "AbortError"]);
const QUERY_NAME_CHARS = 60;

/** Describes `err` when it comes from the database layer; null for any other error. */
export function describeDatabaseError(err: unknown): DatabaseFailure | null {
  let query: string | undefined;
  let sqlstate: string | undefined;
  let unavailable = false;
  let fromDatabase = false;
  for (const e of causeChain(err)) {
    const fields = e as { name?: unknown; query?: unknown; code?: unknown; message?: unknown };
    if (fields.name === "DrizzleQueryError" || fields.name === "NeonDbError") fromDatabase = true;
    if (typeof fields.query === "string" && query === undefined) query = queryName(fields.query);
    if (typeof fields.code === "string" && /^[0-9A-Z]{5}$/.test(fields.code)) {
      sqlstate ??= fields.code;
      fromDatabase = true;
    }
    if (typeof fields.name === "string" && TIMEOUT_NAMES.has(fields.name)) unavailable = true;
    if (typeof fields.message === "string" && UNAVAILABLE_MESSAGE.test(fields.message)) unavailable = true;
  }
  if (sqlstate && UNAVAILABLE_SQLSTATE.test(sqlstate)) unavailable = true;
  if (!fromDatabase && !unavailable) return null;
  return { unavailable, ...(sqlstate ? { sqlstate } : {}), ...(query ? { query } : {}) };
}

/** The error and what it wraps (`cause`, and the Neon driver's `sourceError`), at most a few levels deep. */
function causeChain(err: unknown): object[] {
  const chain: object[] = [];
  let current: unknown = err;
  while (current !== null && typeof current === "object" && chain.length < 6 && !chain.includes(current)) {
    chain.push(current);
    const next = current as { cause?: unknown; sourceError?: unknown };
    current = next.cause ?? next.sourceError;
  }
  return chain;
}

function queryName(sqlText: string): string {
  return sqlText.replace(/\s+/g, " ").trim().slice(0, QUERY_NAME_CHARS);
}
