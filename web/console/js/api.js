/**
 * The console's only way to the service: the public JSON API on this origin, with the user's bearer token.
 * Answers keep the API's own shapes (their types come from the OpenAPI document, through the TypeScript
 * client's names); an error answer becomes an ApiError with the API's code and message.
 */
import { currentToken } from "./session.js";

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {Record<string, unknown> | undefined} details
   * @param {number | null} retryAfter seconds, from Retry-After
   */
  constructor(status, code, message, details, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }
}

/**
 * @typedef {{ status: number, body: unknown, headers: Headers }} Answer
 * @typedef {Record<string, string | number | string[] | null | undefined>} Query
 */

/**
 * @param {string} path
 * @param {Query} [query]
 */
export function apiUrl(path, query = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    if (Array.isArray(value)) {
      if (value.length > 0) url.searchParams.set(name, value.join(","));
    } else url.searchParams.set(name, String(value));
  }
  return url.pathname + url.search;
}

/**
 * One request; any status below 400 is an answer, anything else throws ApiError.
 * @param {"GET" | "POST" | "PUT" | "DELETE"} method
 * @param {string} path
 * @param {{ query?: Query, body?: unknown }} [options]
 * @returns {Promise<Answer>}
 */
export async function call(method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  const token = currentToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(apiUrl(path, options.query), {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    credentials: "omit",
    cache: "no-store",
  });
  const text = await response.text();
  /** @type {unknown} */
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (response.status >= 400) {
    const retry = Number(response.headers.get("retry-after"));
    const error =
      /** @type {{ error?: { code?: string, message?: string, details?: Record<string, unknown> } } | null} */ (
        body
      )?.error;
    throw new ApiError(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? `The service answered ${response.status}`,
      error?.details,
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
  }
  return { status: response.status, body, headers: response.headers };
}

/**
 * A GET whose 200 body is the given type (the caller names it from the API's types).
 * @template T
 * @param {string} path
 * @param {Query} [query]
 * @returns {Promise<T>}
 */
export async function getJson(path, query) {
  return /** @type {T} */ ((await call("GET", path, { query })).body);
}
