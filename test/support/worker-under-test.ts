/**
 * The worker as the tests run it (vitest's `main`): the production worker, and the MemoryAgent built with
 * test collaborators through its constructor (where the production worker passes buildAgentDeps). A test registers what it wants for a subject's agent
 * (overrideAgent) before or after the object exists; the injected deps read the registry on every use,
 * and fall back to the production wiring (buildAgentDeps) for everything not overridden.
 */
import { buildAgentDeps } from "../../src/composition";
import { type AgentDeps, MemoryAgent as MemoryAgentShell } from "../../src/do/memory-agent";
import { type Clock, systemClock } from "../../src/domain/clock";
import type { Generator, GeneratorSource } from "../../src/domain/generation";
import type { Env } from "../../src/env";
import type { RunLedger } from "../../src/memory/run-ledger";

export { default } from "../../src/index";

export interface AgentOverrides {
  clock?: Clock;
  /** A generator (ready), or null for "no LLM configured". Absent: the real generator. */
  generator?: Generator | null;
  /** Settings replacing the worker's for this agent (e.g. a shorter LLM timeout). */
  env?: Record<string, string>;
  /** Wraps the real ledger (e.g. to hold a write until the test releases it). */
  ledger?: (real: RunLedger) => RunLedger;
}

const overrides = new Map<string, AgentOverrides>();

/** Keyed by the Durable Object id (the hex string of idFromName). */
export function overrideAgent(objectId: string, change: AgentOverrides): void {
  overrides.set(objectId, { ...overrides.get(objectId), ...change });
}

function testAgentDeps(objectId: string, env: Env): AgentDeps {
  const clock: Clock = { now: () => (overrides.get(objectId)?.clock ?? systemClock).now() };
  let built: { key: AgentOverrides["env"]; deps: AgentDeps } | null = null;
  const real = (): AgentDeps => {
    const patch = overrides.get(objectId)?.env;
    if (!built || built.key !== patch) {
      built = { key: patch, deps: buildAgentDeps(patch ? ({ ...env, ...patch } as Env) : env, clock) };
    }
    return built.deps;
  };
  return {
    clock,
    get ledger() {
      const wrap = overrides.get(objectId)?.ledger;
      return wrap ? wrap(real().ledger) : real().ledger;
    },
    get reader() {
      return real().reader;
    },
    get memoryCache() {
      return real().memoryCache;
    },
    get items() {
      return real().items;
    },
    get policy() {
      return real().policy;
    },
    get leaseMarginMs() {
      return real().leaseMarginMs;
    },
    get budgets() {
      return real().budgets;
    },
    get webhooks() {
      return real().webhooks;
    },
    logFields: (error) => real().logFields(error),
    generation(): GeneratorSource {
      const o = overrides.get(objectId);
      if (o && "generator" in o) {
        return o.generator
          ? { kind: "ready", generator: o.generator }
          : { kind: "unavailable", code: "llm_not_configured", message: "no LLM in this test" };
      }
      return real().generation();
    },
  };
}

export class MemoryAgent extends MemoryAgentShell {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, testAgentDeps(ctx.id.toString(), env));
  }
}
