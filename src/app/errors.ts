/**
 * Any failure as the error model: domain errors as they are (a configuration error among them), an
 * infrastructure that does not answer (the database) as a 503 to retry shortly, anything else `internal`.
 * Every entry point maps what it catches through this one model; how the infrastructure's failures look is
 * the adapters' knowledge, handed in where the worker is assembled.
 */
import { AppError, type ErrorCode } from "../domain/errors";
import { logLine } from "../log";

/**
 * The HTTP status of each error code: the HTTP API answers with it, and every other entry point records it
 * as the outcome of an audited request (an MCP tool error is audited with the status HTTP would give).
 */
const HTTP_STATUS: Record<ErrorCode, number> = {
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
  sign_in_code_spent: 410,
  internal: 500,
};

export const httpStatusOf = (code: ErrorCode): number => HTTP_STATUS[code];

/** What an adapter can tell about an error of its own; null when the error is not one of its. */
export interface InfrastructureFailure {
  /** It did not answer (unreachable, timed out, shutting down): worth retrying shortly. */
  unavailable: boolean;
  /** Its other fields are safe to log: never parameters or messages that could quote users' content. */
}

export type DescribeFailure = (err: unknown) => InfrastructureFailure | null;

export interface ErrorModel {
  /** The error as the error model; logs every failure that is not a domain error, with `requestId`. */
  toAppError(err: unknown, requestId: string): AppError;
  /** What may be logged about any error: the adapter's description, else the error's type and first frame. */
  logFields(err: unknown): Record<string, unknown>;
}

/** Seconds a client is told to wait when the database is not answering. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export const databaseUnavailable = () =>
  new AppError("database_unavailable", "The database is not answering; try again shortly.", {
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    retryable: true,
  });

export function createErrorModel(describe: DescribeFailure): ErrorModel {
  const logFields = (err: unknown): Record<string, unknown> => {
    const failure = describe(err);
    if (failure) return { ...failure };
    if (!(err instanceof Error)) return { error: typeof err };
    const frame = err.stack
      ?.split("\n")
      .find((line) => line.trim().startsWith("at "))
      ?.trim();
    return { error: err.name, ...(frame ? { at: frame } : {}) };
  };
  return {
    logFields,
    toAppError(err, requestId) {
      if (err instanceof AppError) {
        // Its message names the settings and what is wrong with them, never their values.
        if (err.code === "config_invalid")
          logLine("error", "request_failed", { requestId, code: err.code, message: err.message });
        return err;
      }
      const failure = describe(err);
      if (failure?.unavailable) {
        logLine("error", "request_failed", { requestId, code: "database_unavailable", ...failure });
        return databaseUnavailable();
      }
      logLine("error", "request_failed", { requestId, code: "internal", ...logFields(err) });
      return new AppError("internal", "Internal error");
    },
  };
}
