/**
 * The composition root: the only place that builds adapters and wires them to the domain. The worker builds
 * its services once per request (or cron / queue invocation); a MemoryAgent builds its own once per
 * instance (buildAgentDeps). Behaviour-changing defaults of the agent live in AGENT_DEFAULTS below.
 */
import { createGenerator } from "./agent/generator";
import { type Config, configFor } from "./config/config";
import { createDb, type Db } from "./db/client";
import { errorLogFields } from "./db/database-errors";
import { createIngestAddresses } from "./db/ingest-addresses";
import { createItemStore } from "./db/item-store";
import { createMaterialChangeRecorder } from "./db/memory-events";
import { createPgErasureStore } from "./db/pg-erasure-store";
import { createPgHealthProbe } from "./db/pg-health-probe";
import { createPgMemoryReader } from "./db/pg-memory-reader";
import { createPgRunLedger } from "./db/pg-run-ledger";
import { createPgSweepSource } from "./db/pg-sweep-source";
import { createPgWorkspaceStore } from "./db/pg-workspace-store";
import { createSweepCursorStore } from "./db/sweep-cursor";
import { createMemoryAgentClient } from "./do/memory-agent-client";
import { type Clock, systemClock } from "./domain/clock";
import type { GeneratorSource } from "./domain/generation";
import type { HealthProbe } from "./domain/health";
import type { IngestAddresses } from "./domain/ingest-addresses";
import type { ItemStore } from "./domain/items";
import type { MaterialChangeCause, MemoryEvents } from "./domain/memory-events";
import type { WorkspaceStore } from "./domain/workspace-store";
import type { Env } from "./env";
import { createKvMemoryCache } from "./kv/kv-memory-cache";
import { createLlmClient } from "./llm/create-llm-client";
import type { ErasureStore } from "./memory/erasure-store";
import type { MemoryAgents } from "./memory/memory-agents-port";
import { type MemoryCache, noMemoryCache } from "./memory/memory-cache";
import type { MemoryReader } from "./memory/memory-reader";
import type { RunLedger } from "./memory/run-ledger";
import type { SchedulePolicy } from "./memory/run-schedule";
import { invalidatingUpserts } from "./memory/served-memory";
import type { SweepQueue } from "./memory/sweep-fanout";
import type { SweepCursorStore } from "./memory/sweep-plan";
import type { SweepSource } from "./memory/sweep-source";

/** At most this many subjects' MemoryAgents are poked per change; material_changed_at covers the rest. */
export const MAX_NOTIFIED_SUBJECTS = 50;

/** The MemoryAgent's defaults that are not settings. */
export const AGENT_DEFAULTS = {
  /** Retries never wait longer than this (nor longer than the freshness window). */
  retryCapMs: 6 * 3600_000,
  /** The generator is aborted this long before the lease runs out, so its ending is still recorded. */
  leaseMarginMs: 30_000,
} as const;

export interface Services {
  config: Config;
  clock: Clock;
  health: HealthProbe;
  memoryEvents: MemoryEvents;
  items: ItemStore;
  memoryReader: MemoryReader;
  /** The edge cache (Workers KV), or noMemoryCache: see memoryCacheFor. */
  memoryCache: MemoryCache;
  erasure: ErasureStore;
  sweepSource: SweepSource;
  sweepQueue: SweepQueue;
  sweepCursor: SweepCursorStore;
  ingestAddresses: IngestAddresses;
  workspaces: WorkspaceStore;
  memoryAgents: MemoryAgents;
  /** Runs work after the response (ctx.waitUntil in a request); awaited where there is no request. */
  defer(work: Promise<unknown>): Promise<void>;
}

export function buildServices(env: Env, ctx?: ExecutionContext): Services {
  const config = configFor(env);
  const db = createDb(config);
  const clock = systemClock;
  const memoryAgents = createMemoryAgentClient(env.MEMORY_AGENT, clock);
  const memoryCache = memoryCacheFor(env, config);
  const defer = async (work: Promise<unknown>) => {
    const logged = work.catch((error: unknown) =>
      console.warn(JSON.stringify({ level: "warn", msg: "deferred_failed", ...errorLogFields(error) })),
    );
    if (ctx) ctx.waitUntil(logged);
    else await logged;
  };
  return {
    config,
    clock,
    health: createPgHealthProbe(db),
    memoryEvents: notifyingMemoryEvents(db, clock, memoryAgents, defer),
    items: invalidatingUpserts(createItemStore(db), memoryCache),
    memoryReader: createPgMemoryReader(db),
    memoryCache,
    erasure: createPgErasureStore(db),
    sweepSource: createPgSweepSource(db),
    sweepQueue: sweepQueueOver(env.SWEEP_QUEUE),
    sweepCursor: createSweepCursorStore(db),
    ingestAddresses: createIngestAddresses(db),
    workspaces: createPgWorkspaceStore(db),
    memoryAgents,
    defer,
  };
}

/**
 * Material changes: recorded in Postgres (the sweep reads material_changed_at), then the subjects' agents
 * are told why, once each: "ingest" (debounced by the agent) or "delete" (a redacted memory, refreshed soon).
 */
function notifyingMemoryEvents(
  db: Db,
  clock: Clock,
  agents: MemoryAgents,
  defer: Services["defer"],
): MemoryEvents {
  const recorder = createMaterialChangeRecorder(db, clock);
  const notifyAgents = async (subjectKeys: string[], cause: MaterialChangeCause) => {
    const poked = [...new Set(subjectKeys)].slice(0, MAX_NOTIFIED_SUBJECTS);
    if (poked.length === 0) return;
    await defer(Promise.allSettled(poked.map((id) => agents.requestRefresh(id, cause))));
  };
  return {
    async materialChanged(subjectKeys: string[], cause: MaterialChangeCause, notify = subjectKeys) {
      await recorder.record(subjectKeys);
      await notifyAgents(notify, cause);
    },
    notifyAgents,
  };
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

function sweepQueueOver(queue: Env["SWEEP_QUEUE"]): SweepQueue {
  return {
    async send(messages) {
      await queue.sendBatch(messages.map((body) => ({ body, contentType: "json" as const })));
    },
  };
}

/** What one MemoryAgent instance works with, built once per instance. */
export interface AgentDeps {
  clock: Clock;
  ledger: RunLedger;
  reader: Pick<MemoryReader, "current">;
  /** Written after each commit that changes what GET /memory serves (memory/served-memory.ts). */
  memoryCache: MemoryCache;
  items: Pick<ItemStore, "search">;
  /** Decided once per instance: a generator over the configured LLMs, or why there is none. */
  generation(): GeneratorSource;
  policy: SchedulePolicy;
  leaseMarginMs: number;
}

export function buildAgentDeps(env: Env, clock: Clock = systemClock): AgentDeps {
  const config = configFor(env);
  const db = createDb(config);
  const items = createItemStore(db);
  const source = generatorSource(config, items, clock);
  return {
    clock,
    ledger: createPgRunLedger(db),
    reader: createPgMemoryReader(db),
    memoryCache: memoryCacheFor(env, config),
    items,
    generation: () => source,
    policy: schedulePolicy(config),
    leaseMarginMs: AGENT_DEFAULTS.leaseMarginMs,
  };
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

/**
 * The one decision of whether memories can be generated with this configuration: a generator model, a
 * judge model, and for each an API key or a base URL (a keyless base URL is a local compatible server).
 */
export function generatorSource(config: Config, items: ItemStore, clock: Clock): GeneratorSource {
  const { llm, budgets, salvage } = config;
  const { generator, judge } = llm;
  if (!generator || !judge) {
    return {
      kind: "unavailable",
      code: "llm_not_configured",
      message: "No LLM is configured (GENERATOR_MODEL), so no memory can be generated.",
    };
  }
  for (const ref of [generator, judge]) {
    const settings = llm[ref.provider];
    if (!settings.apiKey && !settings.baseUrl) {
      const setting = ref.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
      return {
        kind: "unavailable",
        code: "llm_not_configured",
        message: `No API key for ${ref.provider}: set ${setting} (or a base URL for a compatible server).`,
      };
    }
  }
  return {
    kind: "ready",
    generator: createGenerator({
      items,
      generator: createLlmClient(generator, llm),
      judge: createLlmClient(judge, llm),
      clock,
      budgets,
      salvage,
    }),
  };
}
