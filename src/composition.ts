/** The composition root: builds every service once per request (or per alarm / cron invocation). */
import { createGenerator } from "./agent/generator";
import { type Config, configFor } from "./config/config";
import { createDb, type Db } from "./db/client";
import { createIngestAddresses } from "./db/ingest-addresses";
import { createItemStore } from "./db/item-store";
import { createMemoryEvents } from "./db/memory-events";
import { createMemoryStore } from "./db/memory-store";
import { createMemoryAgents } from "./do/memory-agents";
import { type Clock, systemClock } from "./domain/clock";
import { AppError } from "./domain/errors";
import type { Generator } from "./domain/generation";
import type { IngestAddresses } from "./domain/ingest-addresses";
import type { ItemStore } from "./domain/items";
import type { MemoryEvents } from "./domain/memory-events";
import type { Env } from "./env";
import { createLlmClient } from "./llm/create-llm-client";
import type { MemoryAgents } from "./memory/memory-agents";
import type { MemoryStore } from "./memory/memory-store";

export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  memoryEvents: MemoryEvents;
  items: ItemStore;
  ingestAddresses: IngestAddresses;
  memoryStore: MemoryStore;
  memoryAgents: MemoryAgents;
  /** Runs work after the response (ctx.waitUntil in a request); awaited where there is no request. */
  defer(work: Promise<unknown>): Promise<void>;
}

export function buildServices(env: Env, ctx?: ExecutionContext): Services {
  const config = configFor(env);
  const db = createDb(config);
  const clock = systemClock;
  const memoryAgents = createMemoryAgents(env.MEMORY_AGENT);
  const defer = async (work: Promise<unknown>) => {
    const logged = work.catch((error: unknown) =>
      console.warn(JSON.stringify({ level: "warn", msg: "deferred_failed", error: String(error) })),
    );
    if (ctx) ctx.waitUntil(logged);
    else await logged;
  };
  return {
    config,
    db,
    clock,
    memoryEvents: createMemoryEvents(db, clock, (subjectIds) =>
      defer(Promise.allSettled(subjectIds.map((id) => memoryAgents.requestRefresh(id, "ingest")))),
    ),
    items: createItemStore(db),
    ingestAddresses: createIngestAddresses(db),
    memoryStore: createMemoryStore(db),
    memoryAgents,
    defer,
  };
}

export type GeneratorSource =
  | { kind: "ready"; generator: Generator }
  | { kind: "unavailable"; code: "llm_not_configured" | "generation_unavailable"; message: string };

/** Why no memory can be generated with this configuration, or null when it can. Cheap: no client is built. */
export function generationProblem(config: Config): { code: "llm_not_configured"; message: string } | null {
  const { generator, judge } = config.llm;
  if (!generator || !judge) {
    return {
      code: "llm_not_configured",
      message: "No LLM is configured (GENERATOR_MODEL), so no memory can be generated.",
    };
  }
  for (const ref of [generator, judge]) {
    const settings = config.llm[ref.provider];
    if (!settings.apiKey && !settings.baseUrl) {
      return { code: "llm_not_configured", message: `No API key or base URL for ${ref.provider}.` };
    }
  }
  return null;
}

/** The generator the MemoryAgent runs: the agent loop and judge over the configured LLMs. */
export function resolveGenerator(services: Services): GeneratorSource {
  const problem = generationProblem(services.config);
  if (problem) return { kind: "unavailable", ...problem };
  try {
    const { llm, budgets } = services.config;
    return {
      kind: "ready",
      generator: createGenerator({
        items: services.items,
        generator: createLlmClient(llm.generator!, llm),
        judge: createLlmClient(llm.judge!, llm),
        clock: services.clock,
        budgets,
      }),
    };
  } catch (error) {
    if (error instanceof AppError && error.code === "llm_not_configured") {
      return { kind: "unavailable", code: "llm_not_configured", message: error.message };
    }
    throw error;
  }
}
