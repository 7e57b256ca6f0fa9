/**
 * What the operations work with: the ports, built per request (or cron / queue invocation) by the
 * composition root. Every entry point receives one of these and hands it to the operations.
 */
import type { Config } from "../config/config";
import type { AuditSink, AuditStore } from "../domain/audit";
import type { Clock } from "../domain/clock";
import type { Embedder } from "../domain/embeddings";
import type { HealthProbe } from "../domain/health";
import type { IngestAddresses } from "../domain/ingest-addresses";
import type { EmbeddingIndex, EmbedQueue } from "../domain/item-embedding";
import type { ItemStore } from "../domain/items";
import type { MemoryEvents } from "../domain/memory-events";
import type { PeopleStore } from "../domain/people-store";
import type { SignInCodes } from "../domain/sign-in-codes";
import type { UsageStore } from "../domain/usage";
import type { WebhookEvents } from "../domain/webhook-events";
import type { WebhookStore } from "../domain/webhooks";
import type { WorkspaceStore } from "../domain/workspace-store";
import type { ImportQueue, ImportStore } from "../import/import-jobs";
import type { DismissalStore } from "../memory/dismissal-store";
import type { ErasureStore } from "../memory/erasure-store";
import type { MemoryAgents } from "../memory/memory-agents-port";
import type { MemoryCache } from "../memory/memory-cache";
import type { MemoryReader } from "../memory/memory-reader";
import type { SweepQueue } from "../memory/sweep-fanout";
import type { SweepCursorStore } from "../memory/sweep-plan";
import type { SweepSource } from "../memory/sweep-source";
import type { AuditTrail } from "./audit-trail";
import type { ErrorModel } from "./errors";

export interface Services {
  config: Config;
  clock: Clock;
  errors: ErrorModel;
  health: HealthProbe;
  memoryEvents: MemoryEvents;
  /** Search resolves its mode here (domain/search-modes.ts): hybrid and semantic embed the query. */
  items: ItemStore;
  /** What the items a viewer may see say about people, and the workspace's people corrections. */
  people: PeopleStore;
  /** The configured embedding model, or null: search is then keyword-only and nothing is embedded. */
  embedder: Embedder | null;
  /** Item chunks and their embeddings. */
  embeddings: EmbeddingIndex;
  /** Changed items on their way to being embedded (the EMBED_QUEUE consumer). */
  embedQueue: EmbedQueue;
  memoryReader: MemoryReader;
  /** The edge cache (Workers KV), or noMemoryCache when the worker has none. */
  memoryCache: MemoryCache;
  erasure: ErasureStore;
  /** What subjects dismissed from their memories. */
  dismissals: DismissalStore;
  sweepSource: SweepSource;
  sweepQueue: SweepQueue;
  sweepCursor: SweepCursorStore;
  /** Where the daily embeddings backfill resumes. */
  embedBackfillCursor: SweepCursorStore;
  ingestAddresses: IngestAddresses;
  /** One-time codes that sign-in links carry instead of tokens. */
  signInCodes: SignInCodes;
  workspaces: WorkspaceStore;
  memoryAgents: MemoryAgents;
  /** This request's audit events, begun by the operations and finished by the entry point. */
  audit: AuditTrail;
  /** Where finished events go (the audit queue). */
  auditSink: AuditSink;
  /** The append-only audit table: the fallback when the queue refuses, and what the audit routes read. */
  auditStore: AuditStore;
  /** The usage ledger (per subject per day). */
  usage: UsageStore;
  /** The workspace's webhook endpoints and their deliveries. */
  webhooks: WebhookStore;
  /** Where webhook events go (the webhooks queue; dropped when the worker has none). */
  webhookEvents: WebhookEvents;
  /** Imports through the service: each upload, its status and summary, and the file until it is read. */
  imports: ImportStore;
  /** Where a stored upload goes to be read (the imports queue). */
  importQueue: ImportQueue;
  /** Runs work after the response (ctx.waitUntil in a request); awaited where there is no request. */
  defer(work: Promise<unknown>): Promise<void>;
}
