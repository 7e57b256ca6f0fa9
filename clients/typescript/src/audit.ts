/**
 * The audit trail and the usage ledger: the caller's own (`client.me.audit()`, `client.me.usage()`) and,
 * with the admin scope, the workspace's (`client.audit`, `client.usage`).
 */
import { UnifiedMemoryError } from "./errors.js";
import type { OperationId } from "./generated/operations.js";
import { request } from "./operations.js";
import { Paginator } from "./pages.js";
import type { Transport } from "./transport.js";
import type { AuditAction, AuditEvent, AuditPage, WorkspaceUsage } from "./types.js";

export interface AuditFilter {
  /** Only events of this actor (a user id, or erased:<hash>). */
  actor?: string;
  action?: AuditAction;
  /** Only events at or after this instant (ISO 8601 text or a Date). */
  since?: string | Date;
  /** Only events before this instant. */
  until?: string | Date;
  signal?: AbortSignal;
}

export interface MyAuditOptions extends AuditFilter {
  /** Events a page. */
  limit?: number;
}

export interface AuditOptions extends MyAuditOptions {
  /** Only events about this subject (`ada`, `team:payments`). */
  subject?: string;
}

export interface UsageOptions {
  /** First day (UTC, `YYYY-MM-DD` or a Date); the API's default is 29 days before `until`. */
  since?: string | Date;
  /** Last day (UTC, inclusive); the API's default is today. At most 366 days in all. */
  until?: string | Date;
  signal?: AbortSignal;
}

export interface WorkspaceUsageOptions extends UsageOptions {
  /** Order of the subjects: cost (the API's default), tokens or subject. */
  sort?: "cost" | "tokens" | "subject";
}

const instant = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value);
const day = (value: string | Date | undefined) =>
  value instanceof Date ? value.toISOString().slice(0, 10) : value;

/** Audit events newest first, across pages, from myAudit (GET /me/audit) or workspaceAudit (GET /audit). */
export function auditPages(
  transport: Transport,
  id: Extract<OperationId, "myAudit" | "workspaceAudit">,
  { signal, limit, since, until, ...filter }: AuditOptions,
): Paginator<AuditEvent, AuditPage> {
  return new Paginator<AuditEvent, AuditPage>(
    (cursor) =>
      transport.json<AuditPage>(
        request(id, {
          query: { ...filter, since: instant(since), until: instant(until), limit, cursor },
          ...(signal ? { signal } : {}),
        }),
      ),
    (page) => ({ entries: page.events, nextCursor: page.nextCursor }),
  );
}

export function usage<T>(
  transport: Transport,
  id: Extract<OperationId, "myUsage" | "workspaceUsage">,
  options: WorkspaceUsageOptions,
): Promise<T> {
  const { signal, since, until, sort } = options;
  return transport.json<T>(
    request(id, { query: { since: day(since), until: day(until), sort }, ...(signal ? { signal } : {}) }),
  );
}

/** The workspace's audit trail (admin scope). */
export class AuditApi {
  constructor(private readonly transport: Transport) {}

  /** Events newest first, across pages: `for await (const event of client.audit.list({ subject: "ada" }))`. */
  list(options: AuditOptions = {}): Paginator<AuditEvent, AuditPage> {
    return auditPages(this.transport, "workspaceAudit", options);
  }

  /**
   * Every matching event in one answer (`?format=ndjson`), parsed line by line as the body arrives: an
   * export does not hold the whole trail in memory. Newest first, as `list()`.
   */
  async *export(
    options: AuditFilter & { subject?: string } = {},
  ): AsyncGenerator<AuditEvent, void, undefined> {
    const { signal, since, until, ...filter } = options;
    const response = await this.transport.send(
      request("workspaceAudit", {
        query: { ...filter, since: instant(since), until: instant(until), format: "ndjson" },
        headers: { accept: "application/x-ndjson" },
        ...(signal ? { signal } : {}),
      }),
    );
    let line = 1;
    for await (const text of lines(response)) {
      if (text.trim() !== "") {
        try {
          yield JSON.parse(text) as AuditEvent;
        } catch (cause) {
          throw new UnifiedMemoryError({
            code: "invalid_response",
            message: `Expected one JSON event on line ${line} of the export, got ${text.slice(0, 100)}`,
            status: response.status,
            requestId: response.headers.get("x-request-id"),
            cause,
          });
        }
      }
      line++;
    }
  }
}

/** The workspace's usage ledger (admin scope). */
export class UsageApi {
  constructor(private readonly transport: Transport) {}

  /** Each subject with its totals and days, by estimated cost unless `sort` says otherwise. */
  list(options: WorkspaceUsageOptions = {}): Promise<WorkspaceUsage> {
    return usage<WorkspaceUsage>(this.transport, "workspaceUsage", options);
  }
}

/** The body's lines, decoded as they arrive (the whole text when the body is not a stream). */
async function* lines(response: Response): AsyncGenerator<string, void, undefined> {
  if (!response.body) {
    yield* (await response.text()).split("\n");
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let rest = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
      const parts = rest.split("\n");
      rest = parts.pop() ?? "";
      yield* parts;
    }
    rest += decoder.decode();
    if (rest !== "") yield rest;
  } finally {
    reader.releaseLock();
  }
}
