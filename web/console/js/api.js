/**
 * The console's only way to the service: the public JSON API on this origin, with the user's bearer token.
 * Each request names an operation of the table generated from the API's contract (operations.js, by
 * `npm run clients:generate`), which gives its method and path. Answers keep the API's own shapes (their
 * types come from the OpenAPI document, through the TypeScript client's names); an error answer becomes an
 * ApiError with the API's code and message.
 */
/** @import { MemoryOperationId, OperationId } from "./operations.js" */
import { OPERATIONS, TEAM_OPERATIONS } from "./operations.js";
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
 * @typedef {{ params?: Record<string, string>, query?: Query, body?: unknown, file?: Blob }} RequestOptions
 */

/**
 * The path of an operation, its path parameters filled in.
 * @param {OperationId} id
 * @param {Record<string, string>} [params]
 */
export function pathOf(id, params = {}) {
  return OPERATIONS[id].path.replace(/\{(\w+)\}/g, (_, /** @type {string} */ name) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${id} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/**
 * One operation of the API; any status below 400 is an answer, anything else throws ApiError.
 * @param {OperationId} id
 * @param {RequestOptions} [options]
 * @returns {Promise<Answer>}
 */
export function request(id, options = {}) {
  const { params, ...rest } = options;
  return call(OPERATIONS[id].method, pathOf(id, params), rest);
}

/**
 * An operation on a subject's memory: the user's own (team null), or a team's.
 * @param {string | null} team
 * @param {MemoryOperationId} id
 * @param {RequestOptions} [options]
 * @returns {Promise<Answer>}
 */
export function memoryRequest(team, id, options = {}) {
  if (team === null) return request(id, options);
  return request(TEAM_OPERATIONS[id], { ...options, params: { ...options.params, team } });
}

/**
 * The 200 body of an operation, of the given type (the caller names it from the API's types).
 * @template T
 * @param {OperationId} id
 * @param {RequestOptions} [options]
 * @returns {Promise<T>}
 */
export async function answerOf(id, options) {
  return /** @type {T} */ ((await request(id, options)).body);
}

/**
 * The 200 body of an operation on a subject's memory.
 * @template T
 * @param {string | null} team
 * @param {MemoryOperationId} id
 * @param {RequestOptions} [options]
 * @returns {Promise<T>}
 */
export async function memoryAnswerOf(team, id, options) {
  return /** @type {T} */ ((await memoryRequest(team, id, options)).body);
}

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
 * @param {"GET" | "POST" | "PUT" | "PATCH" | "DELETE"} method
 * @param {string} path
 * @param {{ query?: Query, body?: unknown, file?: Blob }} [options] `file`: a body sent as it is (an upload)
 * @returns {Promise<Answer>}
 */
export async function call(method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  const token = currentToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.file !== undefined) headers["content-type"] = "application/octet-stream";
  const sent = options.file ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await fetch(apiUrl(path, options.query), {
    method,
    headers,
    ...(sent === undefined ? {} : { body: sent }),
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
