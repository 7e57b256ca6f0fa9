import type { MemoryAgent } from "./do/memory-agent";

/** The worker's bindings. Settings arrive as strings and are validated by config/config.ts. */
export interface Env {
  MEMORY_AGENT: DurableObjectNamespace<MemoryAgent>;
  DATABASE_URL: string;
  [setting: string]: unknown;
}
