/**
 * The composition root: the only place that builds adapters and wires them to the operations and the core.
 * The worker builds its services once per request (or cron / queue / email invocation); a MemoryAgent
 * builds its own once per instance (buildAgentDeps). Behaviour-changing defaults of the agent live in
 * AGENT_DEFAULTS below.
 */
import { generatorSource } from "./agent/generator-source";
import { combineFinders, linkedEvidenceFinder, type RelatedEvidenceFinder } from "./agent/related-evidence";
import { semanticEvidenceFinder } from "./agent/semantic-evidence";
import { AuditTrail } from "./app/audit-trail";
import { createErrorModel, type ErrorModel } from "./app/errors";
import type { Services } from "./app/services";
import { type Config, configFor } from "./config/config";
import { createDb, createMaintenanceDb, type Db } from "./db/client";
import { describeDatabaseError } from "./db/database-errors";
import { createIngestAddresses } from "./db/ingest-addresses";
import { createItemStore } from "./db/item-store";
import { createMaterialChangeRecorder } from "./db/memory-events";
import { createPgAuditStore } from "./db/pg-audit-store";
import { createPgDismissalStore } from "./db/pg-dismissal-store";
import { createPgEmbeddingIndex } from "./db/pg-embedding-index";
import { createPgErasureStore } from "./db/pg-erasure-store";
import { createPgHealthProbe } from "./db/pg-health-probe";
import { createPgImportStore } from "./db/pg-import-store";
import { createPgMemoryReader } from "./db/pg-memory-reader";
import { createPgPeopleStore } from "./db/pg-people-store";
import { createPgRunLedger } from "./db/pg-run-ledger";
import { createPgSignInCodes } from "./db/pg-sign-in-codes";
import { createPgSweepSource } from "./db/pg-sweep-source";
import { createPgUsageStore } from "./db/pg-usage-store";
import { createPgWebhookOutbox } from "./db/pg-webhook-outbox";
import { createPgWebhookStore } from "./db/pg-webhook-store";
import { createPgWorkspaceStore } from "./db/pg-workspace-store";
import { createSweepCursorStore } from "./db/sweep-cursor";
import type { AgentDeps } from "./do/memory-agent";
import { createMemoryAgentClient } from "./do/memory-agent-client";
import { type Clock, systemClock } from "./domain/clock";
import { type Embedder, EmbeddingError } from "./domain/embeddings";
import type { NearItems } from "./domain/item-embedding";
import type { ItemStore } from "./domain/items";
import { withQueryEmbeddings } from "./domain/search-modes";
import { createEmbedder } from "./embeddings/create-embedder";
import type { Env } from "./env";
import { createApp } from "./http/app";
import { createKvMemoryCache } from "./kv/kv-memory-cache";
import { createLlmClient } from "./llm/create-llm-client";
import { logLine } from "./log";
import { mcpEndpoint } from "./mcp/endpoint";
import { createMemoryEvents } from "./memory/material-changes";
import { type MemoryCache, noMemoryCache } from "./memory/memory-cache";
import type { SchedulePolicy } from "./memory/run-schedule";
import { invalidatingUpserts } from "./memory/served-memory";
import { createAuditQueue } from "./queues/audit-queue";
import { createEmbedQueue } from "./queues/embed-queue";
import { createImportQueue } from "./queues/import-queue";
import { createSweepQueue } from "./queues/sweep-queue";
import { createWebhookEvents } from "./queues/webhook-queue";

/** The MemoryAgent's defaults that are not settings. */
export const AGENT_DEFAULTS = {
  /** Retries never wait longer than this (nor longer than the freshness window). */
  retryCapMs: 6 * 3600_000,
  /** The generator is aborted this long before the lease runs out, so its ending is still recorded. */
  leaseMarginMs: 30_000,
} as const;

/** How failures read, for every entry point: the database's are recognised by the db adapter. */
export const errorModel: ErrorModel = createErrorModel(describeDatabaseError);

/** The HTTP API with the MCP endpoint it carries. */
export function createWorkerApp() {
  return createApp({ services: buildServices, errors: errorModel, endpoints: { "/mcp": mcpEndpoint } });
}

/**
 * The services of one request (or cron / queue / email invocation), each built on first use: a GET /memory
 * answered from the edge cache builds the cache, the config and the audit trail, and no database client.
 */
export function buildServices(env: Env, ctx?: ExecutionContext): Services {
  const config = configFor(env);
  const clock = systemClock;
  const defer = async (work: Promise<unknown>) => {
    const logged = work.catch((error: unknown) =>
      logLine("warn", "deferred_failed", errorModel.logFields(error)),
    );
    if (ctx) ctx.waitUntil(logged);
    else await logged;
  };
  return lazily<Services>(
    {
      config: () => config,
      clock: () => clock,
      errors: () => errorModel,
      defer: () => defer,
      health: (s) => createPgHealthProbe(s.db()),
      memoryEvents: (s) =>
        createMemoryEvents({
          recorder: createMaterialChangeRecorder(s.db(), clock),
          agents: s.get("memoryAgents"),
          defer,
        }),
      items: (s) =>
        invalidatingUpserts(searchingItems(createItemStore(s.db()), s.get("embedder")), s.get("memoryCache")),
      people: (s) => createPgPeopleStore(s.db()),
      embedder: () => embedderFor(env),
      embeddings: (s) => createPgEmbeddingIndex(s.db(), createMaintenanceDb(config)),
      embedQueue: () => createEmbedQueue(env.EMBED_QUEUE),
      memoryReader: (s) => createPgMemoryReader(s.db()),
      memoryCache: () => memoryCacheFor(env, config),
      erasure: (s) => createPgErasureStore(s.db()),
      dismissals: (s) => createPgDismissalStore(s.db()),
      sweepSource: (s) => createPgSweepSource(s.db()),
      sweepQueue: () => createSweepQueue(env.SWEEP_QUEUE),
      sweepCursor: (s) => createSweepCursorStore(s.db()),
      embedBackfillCursor: (s) => createSweepCursorStore(s.db(), "embeddings"),
      ingestAddresses: (s) => createIngestAddresses(s.db()),
      signInCodes: (s) => createPgSignInCodes(s.db()),
      workspaces: (s) => createPgWorkspaceStore(s.db()),
      memoryAgents: () => createMemoryAgentClient(env.MEMORY_AGENT, clock),
      audit: () => new AuditTrail(() => clock.now()),
      auditSink: () => createAuditQueue(env.AUDIT_QUEUE),
      auditStore: (s) => createPgAuditStore(s.db()),
      usage: (s) => createPgUsageStore(s.db()),
      webhooks: (s) => createPgWebhookStore(s.db()),
      webhookEvents: (s) =>
        createWebhookEvents({
          queue: env.WEBHOOK_QUEUE,
          outbox: createPgWebhookOutbox(s.db()),
          clock,
          logFields: errorModel.logFields,
        }),
      imports: (s) => createPgImportStore(s.db()),
      importQueue: () => createImportQueue(env.IMPORT_QUEUE),
    },
    () => createDb(config),
  );
}

interface Built<T> {
  get<K extends keyof T>(key: K): T[K];
  /** The request's database client, created on first use. */
  db(): Db;
}

/** An object whose properties are each built on first read (once), by builders that may read each other. */
function lazily<T extends object>(builders: { [K in keyof T]: (built: Built<T>) => T[K] }, db: () => Db): T {
  const target = {} as T;
  let database: Db | undefined;
  const built: Built<T> = {
    get: (key) => target[key],
    db: () => {
      database ??= db();
      return database;
    },
  };
  for (const key of Object.keys(builders) as (keyof T)[]) {
    Object.defineProperty(target, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = builders[key](built);
        Object.defineProperty(target, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return target;
}

const embedders = new WeakMap<object, Embedder | null>();

/** The configured embedder (EMBEDDING_MODEL), built once per env object; null when none is configured. */
export function embedderFor(env: Env): Embedder | null {
  if (!embedders.has(env)) {
    const ai = env.AI as Parameters<typeof createEmbedder>[1]["ai"];
    embedders.set(env, createEmbedder(configFor(env).embeddings, { ai }));
  }
  return embedders.get(env) ?? null;
}

/** The item store whose search embeds the query for hybrid and semantic modes (domain/search-modes.ts). */
function searchingItems(store: ItemStore, embedder: Embedder | null): ItemStore {
  return withQueryEmbeddings(store, embedder, (error) =>
    logLine("warn", "query_embedding_failed", { code: error.code, model: embedder?.model }),
  );
}

/**
 * The edge cache: Workers KV when the worker has its MEMORY_CACHE binding and MEMORY_CACHE_ENABLED is not
 * "false"; otherwise none, and every read goes to Postgres as before the cache existed.
 */
export function memoryCacheFor(env: Env, config: Config): MemoryCache {
  return env.MEMORY_CACHE && config.memoryCache.enabled
    ? createKvMemoryCache(env.MEMORY_CACHE)
    : noMemoryCache;
}

export function buildAgentDeps(env: Env, clock: Clock = systemClock): AgentDeps {
  const config = configFor(env);
  const db = createDb(config);
  const embedder = embedderFor(env);
  const items = searchingItems(createItemStore(db), embedder);
  const source = generatorSource(config, {
    items,
    clock,
    llmClient: (ref) => createLlmClient(ref, config.llm),
    related: relatedEvidenceFinder(items, embedder, createPgEmbeddingIndex(db)),
    people: createPgPeopleStore(db),
  });
  return {
    clock,
    ledger: createPgRunLedger(db),
    reader: createPgMemoryReader(db),
    memoryCache: memoryCacheFor(env, config),
    items,
    generation: () => source,
    policy: schedulePolicy(config),
    leaseMarginMs: AGENT_DEFAULTS.leaseMarginMs,
    budgets: { daily: config.usage.daily, prices: config.usage.prices },
    logFields: errorModel.logFields,
    webhooks: createWebhookEvents({
      queue: env.WEBHOOK_QUEUE,
      outbox: createPgWebhookOutbox(db),
      clock,
      logFields: errorModel.logFields,
    }),
  };
}

/**
 * Which changed items a refresh shows the judge next to a carried statement: the item graph's relations
 * (threads, @-links, people with shared terms), and with an embedder those near it by meaning.
 */
function relatedEvidenceFinder(
  items: ItemStore,
  embedder: Embedder | null,
  chunks: NearItems,
): RelatedEvidenceFinder {
  const linked = linkedEvidenceFinder(items);
  if (!embedder) return linked;
  const semantic = semanticEvidenceFinder({
    embedder,
    chunks,
    onFailure: (error) =>
      logLine("warn", "related_evidence_semantic_failed", {
        model: embedder.model,
        ...(error instanceof EmbeddingError ? { code: error.code } : errorModel.logFields(error)),
      }),
  });
  return combineFinders(linked, semantic);
}

export function schedulePolicy(config: Config): SchedulePolicy {
  const { memory } = config;
  return {
    minIntervalMs: memory.minIntervalMs,
    ingestDebounceMs: memory.ingestDebounceMs,
    maxAttempts: memory.maxAttempts,
    retryBaseMs: memory.retryBaseMs,
    retryCapMs: Math.min(AGENT_DEFAULTS.retryCapMs, memory.ttlMs),
    runLeaseMs: memory.runLeaseMs,
    ttlMs: memory.ttlMs,
  };
}
