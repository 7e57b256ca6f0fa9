import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ConfigError } from "../config/config";
import { describeDatabaseError, errorLogFields } from "../db/database-errors";
import { AppError, type ErrorCode } from "../domain/errors";

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  validation_failed: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  unsupported_media_type: 415,
  payload_too_large: 413,
  rate_limited: 429,
  generation_unavailable: 503,
  llm_not_configured: 503,
  generation_failing: 503,
  database_unavailable: 503,
  config_invalid: 500,
  auth_unavailable: 503,
  internal: 500,
};

/** Seconds a client is told to wait when the database is not answering. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The single place where errors become HTTP responses: `{ error: { code, message, requestId } }`. */
export function errorResponse(err: unknown, c: Context): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "unknown";
  const appError = toAppError(err, requestId);
  const status = STATUS[appError.code];
  if (appError.retryAfterSeconds !== undefined) c.header("Retry-After", String(appError.retryAfterSeconds));
  const body: Record<string, unknown> = { code: appError.code, message: appError.message, requestId };
  if (appError.details !== undefined) body.details = appError.details;
  return c.json({ error: body }, status);
}

/** Any error as the error model: domain errors as they are, a database that does not answer as a 503. Logs the rest. */
export function toAppError(err: unknown, requestId: string): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ConfigError) {
    logError({ requestId, code: "config_invalid", issues: err.issues });
    return new AppError("config_invalid", err.message);
  }
  const database = describeDatabaseError(err);
  if (database?.unavailable) {
    logError({ requestId, code: "database_unavailable", ...database });
    return databaseUnavailable();
  }
  logError({ requestId, code: "internal", ...errorLogFields(err) });
  return new AppError("internal", "Internal error");
}

export const databaseUnavailable = () =>
  new AppError("database_unavailable", "The database is not answering; try again shortly.", {
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    retryable: true,
  });

/**
 * One line of JSON per failure: request id, error code, and for database errors the SQLSTATE and the
 * statement's leading words. Never the query's parameters, a request body or an error message that could
 * quote them.
 */
function logError(fields: Record<string, unknown>): void {
  console.error(JSON.stringify({ level: "error", msg: "request_failed", ...fields }));
}
