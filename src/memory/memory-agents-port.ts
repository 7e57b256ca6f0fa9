/** The port to the subjects' MemoryAgent Durable Objects, as the HTTP routes, ingest and the sweep see it. */
import type { AgentPhase, RunErrorCode, RunTrigger } from "../domain/memory";
import type { RefreshAnswer } from "./run-schedule";

export interface AgentStatus {
  subjectKey: string | null;
  phase: AgentPhase;
  nextRunAt: string | null;
  runId: string | null;
  attempts: number;
  lastError: { code: RunErrorCode; message: string } | null;
}

export interface RefreshOptions {
  /** Not before this time (ms since epoch): the sweep spreads start times with it. */
  notBefore?: number;
  /** The reader found no memory in the database: a run is needed whatever the object remembers. */
  memoryMissing?: boolean;
  /**
   * When the request was sent (ms since epoch), stamped by the client: an agent erased at or after this
   * instant ignores it (an erase is final for everything sent before it).
   */
  sentAt?: number;
}

export interface MemoryAgents {
  /** Asks for a refresh; the object decides (single flight, min interval, debounce, backoff). */
  requestRefresh(subjectKey: string, reason: RunTrigger, options?: RefreshOptions): Promise<RefreshAnswer>;
  /** POST /memory/refresh: a run now, unless inside the min interval or a backoff ("refused"). */
  forceRefresh(subjectKey: string): Promise<RefreshAnswer>;
  status(subjectKey: string): Promise<AgentStatus>;
  /**
   * DELETE /me: the object aborts its run, waits for writes in flight, drops its state and alarm, and
   * keeps a tombstone at `erasedAt` so nothing sent before the erase starts again.
   */
  forget(subjectKey: string, erasedAt: number): Promise<void>;
}
