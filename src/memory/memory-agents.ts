/** The port to the subjects' MemoryAgent Durable Objects, as the HTTP routes, ingest and the sweep see it. */
import type { RefreshAnswer, RefreshReason } from "./run-schedule";

export interface AgentStatus {
  subjectId: string | null;
  phase: "idle" | "scheduled" | "running" | "backoff" | "exhausted";
  nextRunAt: string | null;
  runId: string | null;
  attempts: number;
  lastError: { code: string; message: string } | null;
}

export interface RefreshOptions {
  /** Not before this time (ms since epoch): the sweep spreads start times with it. */
  notBefore?: number;
  /** The reader found no memory in the database: a run is needed whatever the object remembers. */
  memoryMissing?: boolean;
}

export interface MemoryAgents {
  /** Asks for a refresh; the object decides (single flight, min interval, debounce, backoff). */
  requestRefresh(subjectId: string, reason: RefreshReason, options?: RefreshOptions): Promise<RefreshAnswer>;
  /** POST /memory/refresh: a run now, unless inside the min interval or a backoff ("refused"). */
  forceRefresh(subjectId: string): Promise<RefreshAnswer>;
  status(subjectId: string): Promise<AgentStatus>;
  /** Drops the object's state and alarm (DELETE /me). */
  forget(subjectId: string): Promise<void>;
}
