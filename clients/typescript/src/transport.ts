/**
 * Every request of the client: the bearer token, JSON in and out, and bounded retries. 429, 502, 503 and
 * 504 answers, refused connections and timeouts are tried again after Retry-After (or an exponential
 * backoff with jitter), at most `retries` times; a Retry-After longer than `maxRetryAfter` is not waited
 * for but thrown at once. Any other answer outside 2xx/304 is thrown as a UnifiedMemoryError.
 *
 * A write that is not idempotent (a dismissal, a delete) is tried again only after a 429, which the service
 * answers before doing anything: after a timeout, a lost connection or a 5xx it may have committed, and a
 * second attempt would report a dismissal that happened as not_found.
 *
 * The token is checked once (a getToken's, each time it is asked): surrounding whitespace is trimmed, and
 * one holding CR, LF or NUL is a TypeError that never quotes it. No message of the client holds a token.
 */
import { errorFromResponse, UnifiedMemoryError } from "./errors.js";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Where the API is, e.g. https://memory.example.com (a path prefix is kept). */
  baseUrl: string;
  /** A bearer token (JWT); or `getToken`, asked before every attempt (to refresh short-lived tokens). */
  token?: string;
  getToken?: () => string | Promise<string>;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  /** How many times a retryable failure is tried again (default 4, so at most 5 attempts). */
  retries?: number;
  /** The longest Retry-After, in seconds, worth waiting for (default 60); a longer one is thrown at once. */
  maxRetryAfter?: number;
  /** Seconds one attempt may take before it counts as a timeout (default 60; `wait` holds up to 30). */
  timeout?: number;
  /** Replaces the waits between retries and between 202 polls (e.g. in tests). */
  sleep?: (ms: number) => Promise<void>;
}

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface RequestOptions {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  /** A JSON body: a value to serialize, or text already serialized. */
  body?: unknown;
  bodyText?: string;
  /** A body that is not JSON (an uploaded file), sent as application/octet-stream. */
  bodyBytes?: Blob | ArrayBuffer | Uint8Array;
  headers?: Record<string, string>;
  /** False for requests whose 429 is an answer, not congestion (POST /memory/refresh). */
  retryRateLimited?: boolean;
  signal?: AbortSignal;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** 503s that say something lasting about the subject, not about load: retrying changes nothing. */
const FINAL_CODES = new Set(["llm_not_configured", "generation_failing"]);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Transport {
  readonly sleep: (ms: number) => Promise<void>;
  private readonly base: string;
  private readonly fetch: FetchLike;
  private readonly retries: number;
  private readonly maxRetryAfterMs: number;
  private readonly timeoutMs: number;
  private readonly token: () => string | Promise<string>;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError("baseUrl is required");
    const { token, getToken } = options;
    if (token === undefined && getToken === undefined) throw new TypeError("token or getToken is required");
    this.base = options.baseUrl.replace(/\/+$/, "");
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.retries = Math.max(0, Math.floor(options.retries ?? 4));
    this.maxRetryAfterMs = (options.maxRetryAfter ?? 60) * 1000;
    this.timeoutMs = (options.timeout ?? 60) * 1000;
    this.sleep = options.sleep ?? defaultSleep;
    if (token !== undefined) {
      const checked = checkedToken(token);
      this.token = () => checked;
    } else {
      this.token = async () => checkedToken(await (getToken as () => string | Promise<string>)());
    }
  }

  url(path: string, query: Record<string, QueryValue> = {}): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) params.append(name, v);
      else params.append(name, String(value));
    }
    const search = params.toString();
    return `${this.base}${path}${search ? `?${search}` : ""}`;
  }

  /** The answer (2xx or 304), after at most `retries` retries; anything else is thrown. */
  async send(options: RequestOptions): Promise<Response> {
    const url = this.url(options.path, options.query);
    const bodyText =
      options.bodyBytes !== undefined
        ? undefined
        : (options.bodyText ?? (options.body === undefined ? undefined : JSON.stringify(options.body)));
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.retries;
      let response: Response;
      const once = !idempotent(options);
      try {
        response = await this.attempt(url, options, bodyText);
      } catch (error) {
        if (options.signal?.aborted || !(error instanceof UnifiedMemoryError) || last || once) throw error;
        await this.pause(this.backoffMs(attempt), options.signal);
        continue;
      }
      if (response.ok || response.status === 304) return response;
      const error = await errorFromResponse(response);
      const retryable =
        RETRYABLE_STATUS.has(response.status) &&
        !FINAL_CODES.has(error.code) &&
        (response.status !== 429 || options.retryRateLimited !== false) &&
        (response.status === 429 || !once);
      if (!retryable || last) throw error;
      const delayMs = error.retryAfter === null ? this.backoffMs(attempt) : error.retryAfter * 1000;
      if (delayMs > this.maxRetryAfterMs) throw error;
      await this.pause(delayMs, options.signal);
    }
  }

  /** send(), then the JSON body. */
  async json<T>(options: RequestOptions): Promise<T> {
    return readJson<T>(await this.send(options));
  }

  private async attempt(
    url: string,
    options: RequestOptions,
    bodyText: string | undefined,
  ): Promise<Response> {
    const token = await this.token();
    const headers: Record<string, string> = {
      accept: "application/json",
      authorization: `Bearer ${token}`,
      ...options.headers,
    };
    if (bodyText !== undefined) headers["content-type"] = "application/json";
    if (options.bodyBytes !== undefined) headers["content-type"] = "application/octet-stream";
    // A copy of a view (so its buffer is an ArrayBuffer of exactly its bytes, as fetch takes).
    const bytes = options.bodyBytes;
    const body = bytes instanceof Uint8Array ? bytes.slice() : (bytes ?? bodyText);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const forward = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", forward, { once: true });
    try {
      return await this.fetch(url, {
        method: options.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: controller.signal,
      });
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason ?? cause;
      throw new UnifiedMemoryError({
        code: timedOut ? "timeout" : "network_error",
        message: timedOut
          ? `No answer from ${url} within ${this.timeoutMs / 1000} s`
          : `Cannot reach ${url}: ${withoutToken(cause instanceof Error ? cause.message : String(cause), token)}`,
        status: 0,
        cause,
      });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", forward);
    }
  }

  /** Exponential (250 ms × 2ⁿ, at most maxRetryAfter), with jitter so clients do not retry in step. */
  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.maxRetryAfterMs, 250 * 2 ** attempt);
    return Math.round(ceiling * (0.5 + Math.random() / 2));
  }

  private async pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    await this.sleep(ms);
    if (signal?.aborted) throw signal.reason;
  }
}

/** The token as sent: trimmed; CR, LF or NUL inside is a usage error that does not quote it. */
export function checkedToken(token: string): string {
  if (typeof token !== "string") throw new TypeError("The token must be a string");
  const trimmed = token.trim();
  if (trimmed === "") throw new TypeError("The token is empty");
  if (/[\r\n\0]/.test(trimmed)) {
    throw new TypeError("The token holds CR, LF or NUL (a wrapped paste, or a file's line break?): check it");
  }
  return trimmed;
}

const withoutToken = (text: string, token: string): string => text.replaceAll(token, "[token]");

/** A dismissal and a delete change something once: a second attempt cannot tell it happened. */
const idempotent = (options: RequestOptions): boolean =>
  options.method !== "DELETE" && !(options.method === "POST" && options.path.endsWith("/dismiss"));

export async function readJson<T>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new UnifiedMemoryError({
      code: "invalid_response",
      message: `Expected JSON from ${response.url || "the server"}, got ${text.slice(0, 100)}`,
      status: response.status,
      requestId: response.headers.get("x-request-id"),
      cause,
    });
  }
}
