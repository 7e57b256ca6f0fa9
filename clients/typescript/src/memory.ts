/** A subject's memory: the caller's own at /memory, a team's at /teams/{team}/memory (same methods). */
import { type MemoryOperationId, TEAM_OPERATIONS } from "./generated/operations.js";
import { type OperationRequest, request } from "./operations.js";
import { Paginator } from "./pages.js";
import { readJson, type Transport } from "./transport.js";
import type {
  Dismissal,
  DismissalsList,
  Dismissed,
  EmptyMemory,
  Generating,
  MemoryDocument,
  PastMemory,
  RefreshAnswer,
  Run,
  RunsPage,
  Version,
  VersionDiff,
  VersionSummary,
  VersionsPage,
} from "./types.js";

/** The most the API holds one GET /memory (its `wait` parameter); longer waits are several requests. */
const API_MAX_WAIT_SECONDS = 30;

export interface GetMemoryOptions {
  /**
   * Seconds to wait through 202 "generating" (default 0: answer at once). Up to 30 s is one request the API
   * holds; beyond that the client asks again, honouring Retry-After, until the time is up.
   */
  wait?: number;
  /** markdown (default): `memory`; json: `statements`. */
  format?: "markdown" | "json";
  /** The `etag` of an earlier read: `{ status: "not_modified" }` while the memory is still that version. */
  ifNoneMatch?: string;
  /** The version that was current at this instant (ISO 8601 or a Date): `{ status: "past" }`, no wait. */
  asOf?: string | Date;
  signal?: AbortSignal;
}

export type MemoryResult =
  | ({ status: "ready"; etag: string } & MemoryDocument)
  | ({ status: "empty" } & EmptyMemory)
  | ({ status: "past" } & PastMemory)
  | Generating
  | { status: "not_modified"; etag: string };

export interface PageOptions {
  /** Entries per page (the API's default 20, at most 100). */
  limit?: number;
  signal?: AbortSignal;
}

export class MemoryApi {
  /** `team` null: the caller's own memory. */
  constructor(
    private readonly transport: Transport,
    private readonly team: string | null,
  ) {}

  private request(id: MemoryOperationId, options: OperationRequest = {}) {
    if (this.team === null) return request(id, options);
    return request(TEAM_OPERATIONS[id], { ...options, params: { ...options.params, team: this.team } });
  }

  /** The memory; with `wait`, through its 202s until it is ready or the time is up. */
  async get(options: GetMemoryOptions = {}): Promise<MemoryResult> {
    if (options.asOf !== undefined) return this.past(options.asOf, options);
    const wait = Math.max(0, options.wait ?? 0);
    const deadline = Date.now() + wait * 1000;
    const maxRequests = Math.ceil(wait) + 1;
    for (let request = 1; ; request++) {
      const holdSeconds = Math.min(
        API_MAX_WAIT_SECONDS,
        Math.floor(Math.max(0, deadline - Date.now()) / 1000),
      );
      const response = await this.transport.send(
        this.request("getMemory", {
          query: { wait: holdSeconds > 0 ? holdSeconds : undefined, format: options.format },
          ...(options.ifNoneMatch === undefined ? {} : { headers: { "if-none-match": options.ifNoneMatch } }),
          ...(options.signal ? { signal: options.signal } : {}),
        }),
      );
      if (response.status === 304) {
        return { status: "not_modified", etag: response.headers.get("etag") ?? options.ifNoneMatch ?? "" };
      }
      if (response.status === 202) {
        const generating = await readJson<Generating>(response);
        const left = deadline - Date.now();
        if (left <= 0 || request >= maxRequests) return generating;
        await this.transport.sleep(Math.min(left, Math.max(1, generating.retryAfter) * 1000));
        if (options.signal?.aborted) throw options.signal.reason;
        continue;
      }
      const body = await readJson<MemoryDocument | EmptyMemory>(response);
      if ("empty" in body && body.empty) return { status: "empty", ...body };
      return {
        status: "ready",
        etag: response.headers.get("etag") ?? `"${(body as MemoryDocument).version}"`,
        ...(body as MemoryDocument),
      };
    }
  }

  /** The version current at `asOf` (no_memory_at 404 when there was none). */
  private async past(asOf: string | Date, options: GetMemoryOptions): Promise<MemoryResult> {
    const body = await this.transport.json<PastMemory>(
      this.request("getMemory", {
        query: { asOf: asOf instanceof Date ? asOf.toISOString() : asOf, format: options.format },
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
    return { status: "past", ...body };
  }

  /** Asks for a run now. Inside the minimum interval or a backoff: UnifiedMemoryError rate_limited (429, retryAfter). */
  refresh(options: { signal?: AbortSignal } = {}): Promise<RefreshAnswer> {
    return this.transport.json(this.request("refreshMemory", { retryRateLimited: false, ...options }));
  }

  /** The runs ledger, newest first, across pages. */
  runs(options: PageOptions = {}): Paginator<Run, RunsPage> {
    return this.list<Run, RunsPage>("listRuns", options, (page) => ({
      entries: page.runs,
      nextCursor: page.nextCursor,
    }));
  }

  /** Accepted versions, newest first, across pages. */
  versions(options: PageOptions = {}): Paginator<VersionSummary, VersionsPage> {
    return this.list<VersionSummary, VersionsPage>("listVersions", options, (page) => ({
      entries: page.versions,
      nextCursor: page.nextCursor,
    }));
  }

  /** One version with its statements, verdict and citations. */
  version(id: string, options: { signal?: AbortSignal } = {}): Promise<Version> {
    return this.transport.json(this.request("getVersion", { params: { id }, ...options }));
  }

  /** Statement by statement: added, kept and removed (with the reason), against `against` or the version before. */
  diff(id: string, options: { against?: string; signal?: AbortSignal } = {}): Promise<VersionDiff> {
    const { against, signal } = options;
    return this.transport.json(
      this.request("diffVersion", { params: { id }, query: { against }, ...(signal ? { signal } : {}) }),
    );
  }

  /**
   * Takes a statement (`statements[].id` of format json) out of the current version at once and records
   * the dismissal: later runs are told, and a restatement of it is dropped.
   */
  dismiss(statementId: string, options: { reason?: string; signal?: AbortSignal } = {}): Promise<Dismissed> {
    const { reason, signal } = options;
    return this.transport.json(
      this.request("dismissStatement", {
        params: { id: statementId },
        body: reason === undefined ? {} : { reason },
        ...(signal ? { signal } : {}),
      }),
    );
  }

  /** The dismissed statements, newest first. */
  async dismissals(options: { signal?: AbortSignal } = {}): Promise<Dismissal[]> {
    const page = await this.transport.json<DismissalsList>(this.request("listDismissals", options));
    return page.dismissals;
  }

  /** Withdraws a dismissal (by its id): the statement may return with the next run. */
  async withdrawDismissal(id: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.transport.send(this.request("withdrawDismissal", { params: { id }, ...options }));
  }

  private list<T, P>(
    id: "listRuns" | "listVersions",
    { limit, signal }: PageOptions,
    entriesOf: (page: P) => { entries: T[]; nextCursor: string | null },
  ): Paginator<T, P> {
    return new Paginator<T, P>(
      (cursor) =>
        this.transport.json<P>(this.request(id, { query: { limit, cursor }, ...(signal ? { signal } : {}) })),
      entriesOf,
    );
  }
}
