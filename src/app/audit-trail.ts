/**
 * The events one request has begun: an operation begins an event when it starts (so a refusal is recorded
 * too) and fills in what it served; the entry point finishes them at its choke point (app/audit.ts).
 */
import type { AuditAction } from "../domain/audit";

/** An event being recorded: what the operation knows; the entry point adds the rest. */
export interface AuditEntry {
  id: string;
  at: Date;
  action: AuditAction;
  subjectKey: string;
  version: string | null;
  itemIds: string[];
  queryHash: string | null;
  /** Set when the entry point (or the operation) knows a status of its own for this event. */
  status?: number;
  /** Names replacing the caller's and the subject's (an erase records itself under the erased name). */
  names?: { actor: string; subject: string };
}

/** The events one request has begun and not yet finished. */
export class AuditTrail {
  #pending: AuditEntry[] = [];
  #protocol = false;

  constructor(private readonly now: () => Date) {}

  begin(
    action: AuditAction,
    subjectKey: string,
    detail: Partial<Pick<AuditEntry, "version" | "itemIds" | "queryHash">> = {},
  ): AuditEntry {
    const entry: AuditEntry = {
      id: crypto.randomUUID(),
      at: this.now(),
      action,
      subjectKey,
      version: detail.version ?? null,
      itemIds: detail.itemIds ?? [],
      queryHash: detail.queryHash ?? null,
    };
    this.#pending.push(entry);
    return entry;
  }

  /**
   * A protocol carried by the HTTP API (MCP) finishes the events of its own calls, which may end after the
   * HTTP response has begun (a streamed answer): from now on the HTTP choke point leaves them alone.
   */
  handOver(): void {
    this.#protocol = true;
  }

  get handedOver(): boolean {
    return this.#protocol;
  }

  /** Sets `status` on every pending event that has none (e.g. the tool error that ended them). */
  settle(status: number): void {
    for (const entry of this.#pending) entry.status ??= status;
  }

  /** The pending events, handed over once. */
  take(): AuditEntry[] {
    const taken = this.#pending;
    this.#pending = [];
    return taken;
  }
}
