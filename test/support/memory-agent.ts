/** Helpers for the memory tests: a hand-written fake Generator, agent seams, seeded memories. */

import {
  createExecutionContext,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import type { Services } from "../../src/app/services";
import { buildServices } from "../../src/composition";
import { configFor } from "../../src/config/config";
import { createDb, type Db } from "../../src/db/client";
import { createPgRunLedger } from "../../src/db/pg-run-ledger";
import type { MemoryAgent } from "../../src/do/memory-agent";
import { agentName } from "../../src/do/memory-agent-client";
import type { Generator } from "../../src/domain/generation";
import { emptyStats } from "../../src/domain/generation";
import type { Statement } from "../../src/domain/memory";
import { renderMemory } from "../../src/domain/memory-render";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { bearer, READ_WRITE } from "./auth";
import { FakeClock } from "./fakes/fake-clock";
import { type AgentOverrides, overrideAgent } from "./worker-under-test";

export { FakeGenerator, type Step } from "./fakes/fake-generator";

import type { FakeGenerator } from "./fakes/fake-generator";

export const services = (): Services => buildServices(env as Env);

/** The test database, for set-up and checks the service's ports do not offer. */
export const testDb = (): Db => createDb(configFor(env as Env));

export function agentStub(subjectKey: string) {
  return env.MEMORY_AGENT.get(env.MEMORY_AGENT.idFromName(agentName(subjectKey)));
}

/** The Durable Object id of the subject's agent, as the test worker's registry keys it. */
export const agentObjectId = (subjectKey: string): string =>
  env.MEMORY_AGENT.idFromName(agentName(subjectKey)).toString();

/** Registers test collaborators for the subject's agent (see test/support/worker-under-test.ts). */
export const overrideAgentOf = (subjectKey: string, change: AgentOverrides): void =>
  overrideAgent(agentObjectId(subjectKey), change);

/**
 * Gives the subject's agent (through its constructor's injected deps) a generator and a clock a year ahead
 * of real time, so the object's alarms never fire by themselves and each run happens exactly when a test
 * runs the alarm.
 */
export async function installAgent(subjectKey: string, generator: Generator | null, clock = futureClock()) {
  overrideAgentOf(subjectKey, { clock, generator });
  return { stub: agentStub(subjectKey), clock };
}

export const futureClock = () => new FakeClock(new Date(Date.now() + 365 * 24 * 3600_000));

/** Releases a blocked FakeGenerator from inside the subject's agent. */
export async function releaseGenerator(subjectKey: string, generator: FakeGenerator): Promise<void> {
  await runInDurableObject(agentStub(subjectKey), () => generator.release());
}

/** Waits, by asking the agent, until its run has started (bounded; no timers). */
export async function untilRunning(subjectKey: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if ((await agentStub(subjectKey).status()).phase === "running") return;
  }
  throw new Error("the agent never started its run");
}

/** Waits, by asking the agent, until its run has called the generator (bounded; no timers). */
export async function untilGenerating(subjectKey: string, generator: FakeGenerator): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (generator.requests.length > 0) return;
    await agentStub(subjectKey).status();
  }
  throw new Error("the agent's run never called its generator");
}

/** Runs the agent's alarm now (whatever time it is set for). */
export const runAlarm = (subjectKey: string) => runDurableObjectAlarm(agentStub(subjectKey));

/** Removes the agent's alarm, so nothing is left to fire after the test. */
export async function clearAlarm(subjectKey: string): Promise<void> {
  await runInDurableObject(agentStub(subjectKey), async (_agent: MemoryAgent, state) => {
    await state.storage.deleteAlarm();
  });
}

/** Calls the worker and waits for everything it deferred (the pokes to the agent) to settle. */
export async function fetchSettled(
  userId: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  scopes: readonly string[] = READ_WRITE,
): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(`http://local${path}`, {
    method,
    headers: { ...(await bearer(userId, scopes)), ...headers },
  });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** POST /items, waiting for the agents it notifies: tests then see the agent's state deterministically. */
export async function ingestSettled(userId: string, items: unknown[]): Promise<string[]> {
  const ctx = createExecutionContext();
  const request = new Request("http://local/items", {
    method: "POST",
    headers: { ...(await bearer(userId, READ_WRITE)), "content-type": "application/json" },
    body: JSON.stringify({ items }),
  });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env as Env, ctx);
  await waitOnExecutionContext(ctx);
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { items: { id: string }[] }).items.map((i) => i.id);
}

export const statement = (section: string, text: string, ...itemIds: string[]): Statement => ({
  section,
  text,
  itemIds,
});

/** Writes an accepted memory for `subjectKey` through the store, as a run at `generatedAt` would. */
export async function seedMemory(
  subjectKey: string,
  statements: Statement[],
  options: { generatedAt: Date; materialChangedAt?: Date | null },
): Promise<string> {
  const store = createPgRunLedger(testDb());
  const run = {
    id: crypto.randomUUID(),
    subjectKey,
    trigger: "manual" as const,
    attempt: 1,
    queuedAt: options.generatedAt,
    startedAt: options.generatedAt,
  };
  await store.runStarted(run);
  const { markdown, citedIds } = renderMemory(statements);
  const result = await store.runAccepted(
    run,
    {
      markdown,
      statements,
      citedItemIds: citedIds,
      generatorModel: "seed:generator",
      judgeModel: "seed:judge",
      verdict: { accepted: true, reason: "seeded", unsupported: [] },
      generatedAt: options.generatedAt,
      salvaged: null,
    },
    emptyStats(),
    options.generatedAt,
  );
  if (!result.written) throw new Error("seedMemory: a cited item does not exist");
  if (options.materialChangedAt !== undefined)
    await setMaterialChangedAt(subjectKey, options.materialChangedAt);
  return result.versionId;
}

export async function setMaterialChangedAt(subjectKey: string, at: Date | null): Promise<void> {
  await testDb().execute(
    sql`update memories set material_changed_at = ${at ? at.toISOString() : null}::timestamptz where subject_id = ${subjectKey}`,
  );
}

export const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);
