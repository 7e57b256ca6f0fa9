/** The one error model: every failure the domain knows about has a code; HTTP mapping lives in http/errors.ts. */
export type ErrorCode =
  | "bad_request"
  | "validation_failed"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "no_memory_at"
  | "method_not_allowed"
  | "unsupported_media_type"
  | "payload_too_large"
  | "rate_limited"
  | "generation_unavailable"
  | "llm_not_configured"
  | "generation_failing"
  | "database_unavailable"
  | "config_invalid"
  | "auth_unavailable"
  | "semantic_search_unavailable"
  | "embedding_unavailable"
  | "sign_in_code_spent"
  | "internal";

export interface AppErrorOptions {
  /** Structured detail safe to show the caller (e.g. per-item validation errors). */
  details?: unknown;
  retryAfterSeconds?: number;
  retryable?: boolean;
  cause?: unknown;
}

export class AppError extends Error {
  readonly details?: unknown;
  readonly retryAfterSeconds?: number;
  readonly retryable: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.retryable = options.retryable ?? false;
  }
}

export const notFound = (what: string) => new AppError("not_found", `${what} not found`);
