/** The one error type of the client: an API error body, a refused request, or no answer at all. */

/** The API's error codes, plus the client's own: `network_error` and `timeout` (status 0), `invalid_response`. */
export type ErrorCode =
  | "bad_request"
  | "validation_failed"
  | "unauthorized"
  | "forbidden"
  | "not_found"
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
  | "internal"
  | "network_error"
  | "timeout"
  | "invalid_response"
  | (string & {});

export interface UnifiedMemoryErrorInit {
  code: ErrorCode;
  message: string;
  /** HTTP status; 0 when no answer arrived. */
  status: number;
  requestId?: string | null;
  /** Seconds the server asked to wait (Retry-After), when it did. */
  retryAfter?: number | null;
  details?: unknown;
  cause?: unknown;
}

export class UnifiedMemoryError extends Error {
  override readonly name = "UnifiedMemoryError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly requestId: string | null;
  readonly retryAfter: number | null;
  /** The error body's `details` (e.g. `{ items: [{ index, path, message }] }` for validation_failed). */
  readonly details: unknown;

  constructor(init: UnifiedMemoryErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.details = init.details;
  }
}

/** Retry-After in seconds (a number of seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error a non-2xx answer stands for, read from its `{ error: { code, message, requestId, details } }`. */
export async function errorFromResponse(response: Response): Promise<UnifiedMemoryError> {
  const text = await response.text().catch(() => "");
  let body: { error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } } | null =
    null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const error = body && typeof body === "object" ? body.error : undefined;
  return new UnifiedMemoryError({
    code: typeof error?.code === "string" ? error.code : `http_${response.status}`,
    message:
      typeof error?.message === "string"
        ? error.message
        : `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`,
    status: response.status,
    requestId: typeof error?.requestId === "string" ? error.requestId : response.headers.get("x-request-id"),
    retryAfter: parseRetryAfter(response.headers.get("retry-after")),
    details: error?.details,
  });
}
