import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ConfigError } from "../config/config";
import { AppError, type ErrorCode } from "../domain/errors";

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  validation_failed: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
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

/** The single place where errors become HTTP responses: `{ error: { code, message, requestId } }`. */
export function errorResponse(err: unknown, c: Context): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "unknown";
  let appError: AppError;
  if (err instanceof AppError) {
    appError = err;
  } else if (err instanceof ConfigError) {
    console.error(JSON.stringify({ level: "error", msg: "config_invalid", requestId, issues: err.issues }));
    appError = new AppError("config_invalid", err.message);
  } else if (isDatabaseDown(err)) {
    logUnknown(err, requestId);
    appError = new AppError("database_unavailable", "The database is not answering; try again shortly.", {
      retryAfterSeconds: 5,
    });
  } else {
    logUnknown(err, requestId);
    appError = new AppError("internal", "Internal error");
  }
  const status = STATUS[appError.code];
  if (appError.retryAfterSeconds !== undefined) c.header("Retry-After", String(appError.retryAfterSeconds));
  const body: Record<string, unknown> = { code: appError.code, message: appError.message, requestId };
  if (appError.details !== undefined) body.details = appError.details;
  return c.json({ error: body }, status);
}

/** A driver error that means the database is down or unreachable (a 503, not a 500). */
export function isDatabaseDown(err: unknown): boolean {
  return (
    err instanceof Error &&
    /Error connecting to database|Server error \(HTTP status 5|fetch failed/i.test(err.message)
  );
}

function logUnknown(err: unknown, requestId: string): void {
  const e = err instanceof Error ? err : new Error(String(err));
  // drizzle wraps driver errors ("Failed query: ..."); the cause says what the database answered.
  const cause =
    e.cause instanceof Error ? e.cause.message : e.cause === undefined ? undefined : String(e.cause);
  console.error(
    JSON.stringify({
      level: "error",
      msg: "unhandled",
      requestId,
      name: e.name,
      error: e.message,
      cause,
      stack: e.stack,
    }),
  );
}
