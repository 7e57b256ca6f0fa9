import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorModel } from "../app/errors";
import type { ErrorCode } from "../domain/errors";

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  validation_failed: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  no_memory_at: 404,
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
  semantic_search_unavailable: 400,
  embedding_unavailable: 503,
  internal: 500,
};

/** The single place where errors become HTTP responses: `{ error: { code, message, requestId } }`. */
export function errorResponse(err: unknown, c: Context, errors: ErrorModel): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "unknown";
  const appError = errors.toAppError(err, requestId);
  const status = STATUS[appError.code];
  if (appError.retryAfterSeconds !== undefined) c.header("Retry-After", String(appError.retryAfterSeconds));
  const body: Record<string, unknown> = { code: appError.code, message: appError.message, requestId };
  if (appError.details !== undefined) body.details = appError.details;
  return c.json({ error: body }, status);
}
