import type { MemoryAgent } from "./do/memory-agent";
import type { EmbedMessage } from "./domain/item-embedding";
import type { SweepMessage } from "./memory/sweep-fanout";
import type { AuditMessage } from "./queues/audit-queue";
import type { ImportMessage } from "./queues/import-queue";
import type { WebhookMessage } from "./queues/webhook-queue";

/** The worker's bindings. Settings arrive as strings and are validated by config/config.ts. */
export interface Env {
  MEMORY_AGENT: DurableObjectNamespace<MemoryAgent>;
  /** The daily sweep's fan-out past what one invocation dispatches itself. */
  SWEEP_QUEUE: Queue<SweepMessage>;
  /** Items whose content changed, for the embeddings consumer (only used with EMBEDDING_MODEL). */
  EMBED_QUEUE: Queue<EmbedMessage>;
  /** The audit trail's events, written off the response path by the queue's consumer. */
  AUDIT_QUEUE?: Queue<AuditMessage>;
  /** Webhook events and their deliveries (cron/webhook-consumer.ts); without it webhooks are off. */
  WEBHOOK_QUEUE?: Queue<WebhookMessage>;
  /** Runs of imports through the service (cron/import-consumer.ts); without it POST /imports is refused. */
  IMPORT_QUEUE?: Queue<ImportMessage>;
  /** The edge cache of served memories and memberships (Workers KV); without it every read is Postgres. */
  MEMORY_CACHE?: KVNamespace;
  /** Workers AI, for EMBEDDING_MODEL=workers-ai:<model> (embeddings/workers-ai.ts); no local simulation. */
  AI?: Ai;
  DATABASE_URL: string;
  [setting: string]: unknown;
}
