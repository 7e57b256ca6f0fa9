/**
 * Translation of the official SDKs' errors into the port's LlmError. Both SDKs (Stainless-generated) share
 * the same class shapes, so one function serves both: the caller passes its SDK's error classes.
 */
import { LlmError } from "../domain/llm";

interface SdkApiError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** The error classes of one SDK, as exported by `@anthropic-ai/sdk` and `openai`. */
export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  /** The SDK's base error class (e.g. a response it could not parse). */
  BaseError: ErrorClass;
}

/**
 * Maps an error thrown by an SDK call to an LlmError:
 * 429 rate limited (retryable, Retry-After honoured); 529/503 overloaded, other 5xx, 408/409, timeouts and
 * connection failures retryable; 401/403 auth and other 4xx not retryable. An aborted call (the caller's
 * signal) is reported as llm_timeout: the only aborts in this service are wall-clock budgets.
 * Errors that are not the SDK's (programming errors) are returned unchanged.
 */
export function translateSdkError(err: unknown, provider: string, classes: SdkErrorClasses): unknown {
  if (err instanceof LlmError) return err;
  if (err instanceof classes.APIUserAbortError) {
    return new LlmError("llm_timeout", `${provider}: the request was aborted`, true);
  }
  if (err instanceof classes.APIConnectionTimeoutError) {
    return new LlmError("llm_timeout", `${provider}: the request timed out`, true);
  }
  if (err instanceof classes.APIConnectionError) {
    return new LlmError("llm_connection", `${provider}: connection failed: ${err.message}`, true);
  }
  if (err instanceof classes.APIError) {
    return fromStatus(err as SdkApiError, provider);
  }
  if (err instanceof classes.BaseError) {
    return new LlmError("llm_bad_response", `${provider}: ${err.message}`, false);
  }
  return err;
}

function fromStatus(err: SdkApiError, provider: string): LlmError {
  const status = err.status ?? 0;
  const message = `${provider}: ${err.message}`;
  if (status === 429) {
    return new LlmError("llm_rate_limited", message, true, retryAfterSeconds(err.headers));
  }
  if (status === 529 || status === 503) {
    return new LlmError("llm_overloaded", message, true, retryAfterSeconds(err.headers));
  }
  if (status >= 500) return new LlmError("llm_server_error", message, true, retryAfterSeconds(err.headers));
  if (status === 408) return new LlmError("llm_timeout", message, true);
  if (status === 409) return new LlmError("llm_server_error", message, true);
  if (status === 401 || status === 403) return new LlmError("llm_auth", message, false);
  return new LlmError("llm_bad_request", message, false);
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date) as whole seconds, if present. */
export function retryAfterSeconds(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) {
    return Math.max(0, Math.ceil(Number(ms) / 1000));
  }
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
