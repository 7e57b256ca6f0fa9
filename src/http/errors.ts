import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type ErrorModel, httpStatusOf } from "../app/errors";

/** The single place where errors become HTTP responses: `{ error: { code, message, requestId } }`. */
export function errorResponse(err: unknown, c: Context, errors: ErrorModel): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "unknown";
  const appError = errors.toAppError(err, requestId);
  const status = httpStatusOf(appError.code) as ContentfulStatusCode;
  if (appError.retryAfterSeconds !== undefined) c.header("Retry-After", String(appError.retryAfterSeconds));
  const body: Record<string, unknown> = { code: appError.code, message: appError.message, requestId };
  if (appError.details !== undefined) body.details = appError.details;
  return c.json({ error: body }, status);
}
