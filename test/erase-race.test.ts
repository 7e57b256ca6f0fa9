/**
 * Issue 14: an erase is final for everything queued before it. Through the worker with the real agent and
 * Postgres; each race is made deterministic by holding the agent at one step (a gate opened from inside the
 * object) while DELETE /me lands: no sleeping to win a race.
 */
import { runInDurableObject } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE, teamKey } from "../src/domain/workspaces";
import type { RunLedger } from "../src/memory/run-ledger";
import { newUserId } from "./support/auth";
import { runsOf } from "./support/e2e";
import { item } from "./support/items";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  fetchSettled,
  ingestSettled,
  installAgent,
  overrideAgentOf,
  runAlarm,
  services,
  statement,
  testDb,
  untilGenerating,
} from "./support/memory-agent";
import { registerMembers } from "./support/workspaces";

const used: string[] = [];
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

/** A step the agent waits at until the test opens it (from inside the object: promises do not cross). */
class Gate {
  entered = false;
  private open: (() => void) | null = null;
  private readonly opened = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  async pass(): Promise<void> {
    this.entered = true;
    await this.opened;
  }
  release(): void {
    this.open?.();
  }
}

async function subject(generator: FakeGenerator) {
  const userId = newUserId("erase");
  used.push(userId);
  const { clock } = await installAgent(userId, generator);
  const [itemId] = await ingestSettled(userId, [item({ externalId: "plan", body: "Leads payments" })]);
  return { userId, itemId: itemId!, clock };
}

/** Waits, by asking the agent, until `done()` (bounded; no timers). */
async function until(userId: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (done()) return;
    await agentStub(userId).status();
  }
  throw new Error("the agent never got there");
}

async function rowsOf(userId: string): Promise<Record<string, number>> {
  const count = async (table: string, column: string) => {
    const result = await testDb().execute(
      sql`select count(*)::int as n from ${sql.identifier(table)} where ${sql.identifier(column)} = ${userId}`,
    );
    return Number(result.rows[0]?.n ?? 0);
  };
  return {
    items: await count("items", "owner_id"),
    memories: await count("memories", "subject_id"),
    versions: await count("memory_versions", "subject_id"),
    runs: await count("memory_runs", "subject_id"),
  };
}

const NOTHING = { items: 0, memories: 0, versions: 0, runs: 0 };

/**
 * After an erase: nothing of the user anywhere; a read finds nothing to remember (200, empty) and asks for
 * no run; once new material arrives, a read starts a first memory from nothing.
 */
async function expectErasedThenFresh(userId: string): Promise<void> {
  expect(await rowsOf(userId)).toEqual(NOTHING);
  const empty = await fetchSettled(userId, "GET", "/memory");
  expect(empty.status).toBe(200);
  expect(await empty.json()).toMatchObject({ empty: true, version: null });
  await ingestSettled(userId, [item({ externalId: "after-erase" })]);
  const res = await fetchSettled(userId, "GET", "/memory");
  expect(res.status).toBe(202);
  expect(await agentStub(userId).status()).toMatchObject({ subjectKey: userId, phase: "scheduled" });
}

describe("an erase racing a read", () => {
  it("refuses a poke sent before the erase that reaches the agent after it: no run, no row, no LLM call", async () => {
    const generator = new FakeGenerator({ kind: "accept", statements: [] });
    const { userId } = await subject(generator);
    const sentBeforeErase = Date.now();
    expect((await fetchSettled(userId, "DELETE", "/me")).status).toBe(204);

    // The read's poke, delayed past the erase (as through waitUntil).
    const late = await agentStub(userId).requestRefresh(userId, "read", {
      memoryMissing: true,
      sentAt: sentBeforeErase,
    });
    expect(late).toEqual({ status: "erased" });
    expect(await runAlarm(userId)).toBe(false);
    expect(generator.requests).toEqual([]);
    await expectErasedThenFresh(userId);
  });

  it("writes no ledger row for a run that started before the erase and reaches its first write after it", async () => {
    const generator = new FakeGenerator({ kind: "accept", statements: [] });
    const { userId } = await subject(generator);
    const gate = new Gate();
    overrideAgentOf(userId, {
      ledger: (real): RunLedger => ({
        ...real,
        materialChangedSinceMemory: async (id) => {
          await gate.pass();
          return real.materialChangedSinceMemory(id);
        },
      }),
    });
    expect((await fetchSettled(userId, "GET", "/memory")).status).toBe(202);
    const alarm = runAlarm(userId);
    await until(userId, () => gate.entered);
    expect((await agentStub(userId).status()).phase).toBe("running");

    expect((await fetchSettled(userId, "DELETE", "/me")).status).toBe(204);
    await runInDurableObject(agentStub(userId), () => gate.release());
    await alarm;

    expect(generator.requests).toEqual([]);
    overrideAgentOf(userId, { ledger: undefined });
    await expectErasedThenFresh(userId);
  });

  it("aborts a run whose generation is under way: its rows go with the erase and no LLM call follows", async () => {
    const generator = new FakeGenerator({ kind: "block" }, { kind: "accept", statements: [] });
    const { userId } = await subject(generator);
    expect((await fetchSettled(userId, "POST", "/memory/refresh")).status).toBe(202);
    const alarm = runAlarm(userId);
    await untilGenerating(userId, generator);
    expect(await rowsOf(userId)).toMatchObject({ runs: 1 });

    expect((await fetchSettled(userId, "DELETE", "/me")).status).toBe(204);
    await alarm;

    expect(generator.abortedRuns).toEqual([generator.requests[0]!.runId]);
    expect(generator.requests).toHaveLength(1);
    await expectErasedThenFresh(userId);
  });

  it("waits for a final write in flight, then erases what it wrote", async () => {
    const generator = new FakeGenerator();
    const { userId, itemId } = await subject(generator);
    generator.push({ kind: "accept", statements: [statement("Work", "Leads payments", itemId)] });
    const gate = new Gate();
    overrideAgentOf(userId, {
      ledger: (real): RunLedger => ({
        ...real,
        runAccepted: async (...args) => {
          await gate.pass();
          return real.runAccepted(...args);
        },
      }),
    });
    expect((await fetchSettled(userId, "POST", "/memory/refresh")).status).toBe(202);
    const alarm = runAlarm(userId);
    await until(userId, () => gate.entered);

    const erase = fetchSettled(userId, "DELETE", "/me");
    // The erase has reached the agent (its state is gone) and waits for the write still held at the gate.
    for (let i = 0; i < 1000 && (await agentStub(userId).status()).subjectKey !== null; i++);
    expect((await agentStub(userId).status()).subjectKey).toBeNull();
    await runInDurableObject(agentStub(userId), () => gate.release());
    expect((await erase).status).toBe(204);
    await alarm;

    overrideAgentOf(userId, { ledger: undefined });
    await expectErasedThenFresh(userId);
  });
});

describe("a run whose final write is refused", () => {
  it("never leaves its ledger row running: the next run closes it as interrupted", async () => {
    const generator = new FakeGenerator({ kind: "fail", code: "llm_server_error", retryable: true });
    const { userId, itemId, clock } = await subject(generator);
    generator.push({ kind: "accept", statements: [statement("Work", "Leads payments", itemId)] });
    let refused = false;
    overrideAgentOf(userId, {
      ledger: (real): RunLedger => ({
        ...real,
        runEnded: async (...args) => {
          if (!refused) {
            refused = true;
            throw new Error("database unavailable");
          }
          return real.runEnded(...args);
        },
      }),
    });
    expect((await fetchSettled(userId, "POST", "/memory/refresh")).status).toBe(202);
    await runAlarm(userId);
    expect(await agentStub(userId).status()).toMatchObject({
      phase: "backoff",
      lastError: { code: "database_unavailable" },
    });
    expect((await runsOf(userId)).map((r) => r.status)).toEqual(["running"]);

    clock.advance(60 * 60_000);
    await runAlarm(userId);
    // A retry keeps the first request's queued_at, so the listing orders these two by id: compare as a set.
    const runs = await runsOf(userId);
    expect(runs.map((r) => [r.status, r.errorCode, r.attempt]).sort()).toEqual([
      ["failed", "run_interrupted", 1],
      ["succeeded", null, 2],
    ]);
  });
});

describe("a team deleted while its memory is being generated", () => {
  it("aborts the team's run: its rows go with the team, no LLM call follows, and a team of the same id starts from nothing", async () => {
    const generator = new FakeGenerator({ kind: "block" }, { kind: "accept", statements: [] });
    const member = newUserId("member");
    const admin = newUserId("admin");
    const teamId = `race-${crypto.randomUUID().slice(0, 8)}`;
    const team = teamKey(DEFAULT_WORKSPACE, teamId);
    used.push(team, member);
    await registerMembers(member);
    await services().workspaces.putTeam(
      DEFAULT_WORKSPACE,
      teamId,
      { name: "Race", members: [member] },
      new Date(),
    );
    await installAgent(team, generator);
    await ingestSettled(member, [
      item({ externalId: "t", body: "Ships the ledger", sharedWith: [`team:${teamId}`] }),
    ]);
    expect((await fetchSettled(member, "POST", `/teams/${teamId}/memory/refresh`)).status).toBe(202);
    const alarm = runAlarm(team);
    await untilGenerating(team, generator);
    expect(await rowsOf(team)).toMatchObject({ runs: 1 });

    const ADMIN = ["memory:read", "items:write", "admin"];
    expect((await fetchSettled(admin, "DELETE", `/teams/${teamId}`, {}, ADMIN)).status).toBe(204);
    await alarm;

    expect(generator.abortedRuns).toEqual([generator.requests[0]!.runId]);
    expect(generator.requests).toHaveLength(1);
    expect(await rowsOf(team)).toEqual(NOTHING);
    // A new team with the same id does not inherit anything.
    await services().workspaces.putTeam(
      DEFAULT_WORKSPACE,
      teamId,
      { name: "Race", members: [member] },
      new Date(),
    );
    const res = await fetchSettled(member, "GET", `/teams/${teamId}/memory`);
    expect(await res.json()).toMatchObject({ empty: true, version: null });
  });
});
