/**
 * The run pipeline (memory/run-execution.ts) with in-memory fakes and a fixed clock: no workerd storage,
 * no Postgres, no LLM. What the MemoryAgent's alarm does, step by step, and what it writes.
 */
import { describe, expect, it } from "vitest";
import type { GeneratorSource } from "../../src/domain/generation";
import type { SearchHit } from "../../src/domain/items";
import type { RunTrigger, Statement } from "../../src/domain/memory";
import { renderMemory } from "../../src/domain/memory-render";
import type { WebhookPayload } from "../../src/domain/webhook-events";
import { type AgentStateStore, type RunExecutionDeps, runAlarm } from "../../src/memory/run-execution";
import { RunGuard } from "../../src/memory/run-guard";
import {
  type AgentState,
  alarmAt,
  initialState,
  onRequest,
  type SchedulePolicy,
} from "../../src/memory/run-schedule";
import { FakeClock } from "../support/fakes/fake-clock";
import { FakeGenerator } from "../support/fakes/fake-generator";
import { InMemoryMemoryCache } from "../support/fakes/in-memory-memory-cache";
import { InMemoryRunLedger } from "../support/fakes/in-memory-run-ledger";

const MIN = 60_000;
const SUBJECT = "ada";
const POLICY: SchedulePolicy = {
  minIntervalMs: 60 * MIN,
  ingestDebounceMs: 5 * MIN,
  maxAttempts: 3,
  retryBaseMs: MIN,
  retryCapMs: 60 * MIN,
  runLeaseMs: 15 * MIN,
  ttlMs: 24 * 60 * MIN,
};

const say = (text: string, ...itemIds: string[]): Statement => ({ section: "Work", text, itemIds });

function harness(generator: FakeGenerator | null) {
  const clock = new FakeClock("2025-06-02T09:00:00.000Z");
  const ledger = new InMemoryRunLedger();
  const memoryCache = new InMemoryMemoryCache();
  ledger.items.add("i1").add("i2").add("i3");
  let state: AgentState = { ...initialState(), subjectKey: SUBJECT };
  const store: AgentStateStore = {
    load: () => state,
    commit: async (next) => {
      state = next;
    },
  };
  let runs = 0;
  const source: GeneratorSource = generator
    ? { kind: "ready", generator }
    : { kind: "unavailable", code: "llm_not_configured", message: "no LLM in this test" };
  const deps: RunExecutionDeps = {
    ledger,
    reader: ledger,
    memoryCache,
    pause: async () => {},
    // What the subject can see: the ledger's known items, as search hits.
    items: {
      search: async () => ({
        items: [...ledger.items].slice(0, 1).map((id) => ({ id }) as unknown as SearchHit),
        nextCursor: null,
      }),
    },
    generation: () => source,
    state: store,
    guard: new RunGuard((runId) => state.run?.id === runId),
    clock,
    policy: POLICY,
    leaseMarginMs: 30_000,
    newRunId: () => `run-${++runs}`,
    log: () => {},
  };
  return {
    clock,
    ledger,
    memoryCache,
    deps,
    state: () => state,
    setState: (next: AgentState) => {
      state = next;
    },
    request(reason: RunTrigger, memoryMissing = true) {
      state = onRequest(state, reason, clock.now().getTime(), POLICY, undefined, memoryMissing).state;
    },
    /** Moves the clock to the alarm's time and runs it. */
    async alarm() {
      const at = alarmAt(state);
      if (at === null) throw new Error("no alarm is set");
      clock.set(new Date(Math.max(at, clock.now().getTime())));
      await runAlarm(deps);
    },
  };
}

describe("a run of the memory pipeline", () => {
  it("calls no LLM and records no run for a subject who can see no item", async () => {
    const generator = new FakeGenerator({ kind: "accept", statements: [say("Leads payments", "i1")] });
    const h = harness(generator);
    h.ledger.items.clear();
    h.request("read");
    await h.alarm();

    expect(generator.requests).toEqual([]);
    expect(h.ledger.runs).toEqual([]);
    expect(h.state()).toMatchObject({ phase: "idle", run: null, failures: 0 });
    expect(alarmAt(h.state())).toBeNull();
  });

  it("writes an accepted memory rendered once from its statements, and leaves the agent idle", async () => {
    const statements = [say("Leads payments", "i1"), say("Ships on 3 March", "i2", "i1")];
    const h = harness(new FakeGenerator({ kind: "accept", statements }));
    h.request("read");
    await h.alarm();

    expect(h.ledger.runs).toMatchObject([
      { id: "run-1", trigger: "read", status: "succeeded", salvaged: null },
    ]);
    const [version] = h.ledger.versions;
    expect(version).toMatchObject({ statements, citedItemIds: ["i1", "i2"], runId: "run-1" });
    expect(version!.markdown).toBe(renderMemory(statements).markdown);
    expect(version!.generatedAt).toEqual(h.clock.now());
    expect(h.state()).toMatchObject({ phase: "idle", run: null, failures: 0 });
    expect(alarmAt(h.state())).toBeNull();
  });

  it("gives the generator the previous memory on a refresh", async () => {
    const generator = new FakeGenerator(
      { kind: "accept", statements: [say("Leads payments", "i1")] },
      { kind: "accept", statements: [say("Leads billing", "i2")] },
    );
    const h = harness(generator);
    h.request("read");
    await h.alarm();
    h.clock.advance(2 * 60 * MIN);
    h.request("manual");
    await h.alarm();
    expect(generator.requests[1]!.previous).toMatchObject({
      versionId: h.ledger.versions[0]!.id,
      statements: [say("Leads payments", "i1")],
    });
    expect(h.ledger.memories.get(SUBJECT)!.version!.statements).toEqual([
      { ...say("Leads billing", "i2"), id: expect.any(String), firstStated: h.clock.now().toISOString() },
    ]);
  });

  it("confirms an unchanged memory on a read without calling the generator or writing a run", async () => {
    const generator = new FakeGenerator({ kind: "accept", statements: [say("Leads payments", "i1")] });
    const h = harness(generator);
    h.request("read");
    await h.alarm();
    h.clock.advance(25 * 60 * MIN);
    h.request("read", false);
    await h.alarm();
    expect(generator.requests).toHaveLength(1);
    expect(h.ledger.runs).toHaveLength(1);
    expect(h.ledger.memories.get(SUBJECT)!.checkedAt).toEqual(h.clock.now());
    expect(h.state()).toMatchObject({ phase: "idle", freshAsOf: h.clock.now().getTime() });
  });

  it("writes the edge cache after each commit that changes what is served: the accepted version, then its confirmation", async () => {
    const generator = new FakeGenerator({ kind: "accept", statements: [say("Leads payments", "i1")] });
    const h = harness(generator);
    h.request("read");
    await h.alarm();
    const entry = h.memoryCache.memories.get(SUBJECT);
    expect(entry?.version).toMatchObject({
      id: h.ledger.versions[0]!.id,
      markdown: "## Work\n- Leads payments [1]",
    });
    // Kept for the freshness window from the memory's generation, then written again once confirmed.
    expect(h.memoryCache.ttls.get(`memory ${SUBJECT}`)).toBe(POLICY.ttlMs / 1000);
    h.clock.advance(25 * 60 * MIN);
    h.request("read", false);
    await h.alarm();
    expect(h.memoryCache.memories.get(SUBJECT)?.checkedAt).toEqual(h.clock.now());
    expect(h.memoryCache.operations.filter((op) => op.startsWith("put"))).toEqual([
      `put memory ${SUBJECT}`,
      `put memory ${SUBJECT}`,
    ]);
  });

  it("still succeeds when the edge cache cannot be written: the entry is removed and the failure logged", async () => {
    const h = harness(new FakeGenerator({ kind: "accept", statements: [say("Leads payments", "i1")] }));
    const logged: string[] = [];
    h.deps.log = (_level, msg) => void logged.push(msg);
    h.memoryCache.beforePut = async () => {
      throw new Error("KV unavailable");
    };
    h.request("read");
    await h.alarm();
    expect(h.ledger.runs).toMatchObject([{ status: "succeeded" }]);
    expect(h.state()).toMatchObject({ phase: "idle", failures: 0 });
    expect(h.memoryCache.memories.has(SUBJECT)).toBe(false);
    expect(h.memoryCache.operations).toContain(`delete memory ${SUBJECT}`);
    expect(logged).toEqual(["memory_cache_write_failed"]);
  });

  it("records each new version's announcement with it (ids and counts, never words), then hands it over", async () => {
    const generator = new FakeGenerator(
      { kind: "accept", statements: [say("Leads payments", "i1"), say("Ships on 3 March", "i2")] },
      { kind: "accept", statements: [say("Leads billing", "i3")] },
    );
    const h = harness(generator);
    let flushes = 0;
    h.deps.webhooks = {
      emit: async () => {},
      flush: async () => ({ sent: ++flushes, deferred: 0, givenUp: 0 }),
    };
    h.request("read");
    await h.alarm();
    h.clock.advance(2 * 60 * MIN);
    h.request("manual");
    await h.alarm();
    const [first, second] = h.ledger.versions;
    expect(h.ledger.versions.map((v) => v.announcement)).toEqual([
      {
        workspaceId: "default",
        data: {
          subject: SUBJECT,
          previousVersion: null,
          reason: "refresh",
          statements: { added: 2, removed: 0, kept: 0 },
        },
      },
      {
        workspaceId: "default",
        data: {
          subject: SUBJECT,
          previousVersion: first!.id,
          reason: "refresh",
          statements: { added: 1, removed: 2, kept: 0 },
        },
      },
    ]);
    expect(second).toBeDefined();
    expect(flushes).toBe(2);
    expect(JSON.stringify(h.ledger.versions.map((v) => v.announcement))).not.toMatch(
      /payments|billing|March/,
    );
  });

  it("announces a version made because the memory was redacted with the reason redaction", async () => {
    const h = harness(new FakeGenerator({ kind: "accept", statements: [say("Leads payments", "i1")] }));
    h.deps.webhooks = { emit: async () => {}, flush: async () => ({ sent: 1, deferred: 0, givenUp: 0 }) };
    h.request("delete");
    await h.alarm();
    expect(h.ledger.versions[0]?.announcement?.data.reason).toBe("redaction");
  });

  it("records no announcement when webhooks are off", async () => {
    const h = harness(new FakeGenerator({ kind: "accept", statements: [say("Leads payments", "i1")] }));
    h.request("read");
    await h.alarm();
    expect(h.ledger.versions[0]?.announcement).toBeUndefined();
  });

  it("announces repeated failures from the second on, and a refused announcement never fails the run", async () => {
    const h = harness(
      new FakeGenerator(
        { kind: "fail", code: "llm_server_error", retryable: true },
        { kind: "fail", code: "llm_server_error", retryable: true },
      ),
    );
    const emitted: WebhookPayload[] = [];
    const logged: string[] = [];
    const nothing = async () => ({ sent: 0, deferred: 0, givenUp: 0 });
    h.deps.log = (_level, msg) => void logged.push(msg);
    h.deps.webhooks = { emit: async (payload) => void emitted.push(payload), flush: nothing };
    h.request("read");
    await h.alarm();
    expect(emitted).toEqual([]);
    await h.alarm();
    expect(emitted).toMatchObject([
      {
        type: "memory.generation_failing",
        data: { subject: SUBJECT, attempt: 2, errorCode: "llm_server_error" },
      },
    ]);
    const refusing = async () => {
      throw new Error("database unavailable");
    };
    const accepted = harness(
      new FakeGenerator({ kind: "accept", statements: [say("Leads payments", "i1")] }),
    );
    accepted.deps.log = h.deps.log;
    accepted.deps.webhooks = { emit: refusing, flush: refusing };
    accepted.request("read");
    await accepted.alarm();
    expect(accepted.ledger.runs).toMatchObject([{ status: "succeeded" }]);
    expect(logged).toContain("webhook_event_failed");
  });

  it("records salvaged statements with the accepted memory", async () => {
    const generator = new FakeGenerator({ kind: "accept", statements: [say("Leads payments", "i1")] });
    const h = harness(generator);
    const salvaged = {
      kept: 1,
      dropped: 1,
      statements: [{ section: "Work", text: "Owns X", reason: "cites E9" }],
    };
    generator.generate = async (request) => {
      generator.requests.push(request);
      return {
        outcome: "accepted",
        statements: [say("Leads payments", "i1")],
        salvaged,
        generatorModel: "g",
        judgeModel: "j",
        verdict: { accepted: true, reason: "ok", unsupported: [] },
        stats: { turns: 1, toolCalls: 0, inputTokens: 0, outputTokens: 0, usage: {} },
      };
    };
    h.request("manual");
    await h.alarm();
    expect(h.ledger.runs[0]).toMatchObject({ status: "succeeded", salvaged });
    expect(h.ledger.versions[0]!.salvaged).toEqual(salvaged);
  });

  it("ends as failed llm_not_configured, and says unavailable, when no generator can run", async () => {
    const h = harness(null);
    h.request("read");
    await h.alarm();
    expect(h.ledger.runs).toMatchObject([{ status: "failed", errorCode: "llm_not_configured" }]);
    expect(h.ledger.memories.get(SUBJECT)).toMatchObject({
      status: "unavailable",
      errorCode: "llm_not_configured",
    });
    expect(h.state()).toMatchObject({ phase: "exhausted" });
  });

  it("records a rejection and backs off, keeping the previous memory", async () => {
    const h = harness(new FakeGenerator({ kind: "reject", reason: "statement 0 is unsupported" }));
    h.request("manual");
    await h.alarm();
    expect(h.ledger.runs).toMatchObject([{ status: "rejected", errorCode: "judge_rejected" }]);
    expect(h.ledger.memories.get(SUBJECT)).toMatchObject({
      status: "retrying",
      version: null,
      lastFailure: {
        message: "statement 0 is unsupported",
        attempt: 1,
        nextAttemptAt: new Date(h.clock.now().getTime() + MIN),
      },
    });
    expect(h.state()).toMatchObject({
      phase: "backoff",
      failures: 1,
      nextRunAt: h.clock.now().getTime() + MIN,
    });
  });

  it("fails the run as cited_item_deleted when an item it cites was deleted during the run", async () => {
    const h = harness(new FakeGenerator({ kind: "accept", statements: [say("Owns X", "gone")] }));
    h.request("manual");
    await h.alarm();
    expect(h.ledger.runs).toMatchObject([{ status: "failed", errorCode: "cited_item_deleted" }]);
    expect(h.ledger.versions).toEqual([]);
    expect(h.state()).toMatchObject({ phase: "backoff", lastError: { code: "cited_item_deleted" } });
  });

  it("moves on to a backoff when the ledger cannot be written, and the next run closes the row left running", async () => {
    const generator = new FakeGenerator(
      { kind: "fail", code: "llm_server_error", retryable: true },
      { kind: "accept", statements: [say("Leads payments", "i1")] },
    );
    const h = harness(generator);
    h.ledger.failNext("runEnded");
    h.request("manual");
    await h.alarm();
    expect(h.state()).toMatchObject({ phase: "backoff", lastError: { code: "database_unavailable" } });
    expect(h.ledger.runs).toMatchObject([{ id: "run-1", status: "running" }]);

    await h.alarm();
    expect(h.ledger.runs).toMatchObject([
      { id: "run-1", status: "failed", errorCode: "run_interrupted" },
      { id: "run-2", status: "succeeded" },
    ]);
  });

  it("writes nothing for a run that no longer holds the agent when it ends", async () => {
    const generator = new FakeGenerator(
      { kind: "block" },
      { kind: "accept", statements: [say("Leads", "i1")] },
    );
    const h = harness(generator);
    h.request("manual");
    const running = h.alarm();
    await Promise.resolve();
    while (generator.requests.length === 0) await new Promise<void>((r) => queueMicrotask(r));
    // The lease was taken over (or the agent erased): the state no longer names this run.
    h.setState({ ...h.state(), run: null, phase: "idle" });
    generator.release();
    await running;
    expect(h.ledger.runs).toMatchObject([{ id: "run-1", status: "running" }]);
    expect(h.ledger.versions).toEqual([]);
    expect(h.ledger.calls).toEqual(["runStarted"]);
  });

  it("aborts generation and writes nothing once the guard is told to abort (an erase)", async () => {
    const generator = new FakeGenerator({ kind: "block" });
    const h = harness(generator);
    h.request("manual");
    const running = h.alarm();
    while (generator.requests.length === 0) await new Promise<void>((r) => queueMicrotask(r));
    h.setState({ ...initialState() });
    await h.deps.guard.abortAndDrain("erased");
    await running;
    expect(generator.abortedRuns).toEqual(["run-1"]);
    expect(h.ledger.calls).toEqual(["runStarted"]);
    expect(h.state()).toEqual(initialState());
  });

  it("records a run whose lease expired as interrupted, then starts it again under a new id", async () => {
    const generator = new FakeGenerator({ kind: "accept", statements: [say("Leads", "i1")] });
    const h = harness(generator);
    h.request("manual");
    // The run began in an object that was then evicted: its state says running, its ledger row too.
    const clockAt = h.clock.now().getTime();
    const run = {
      id: "evicted",
      trigger: "manual" as const,
      attempt: 1,
      requestedAt: clockAt,
      startedAt: clockAt,
      leaseUntil: clockAt + 15 * MIN,
    };
    await h.ledger.runStarted({
      id: run.id,
      subjectKey: SUBJECT,
      trigger: "manual",
      attempt: 1,
      queuedAt: h.clock.now(),
      startedAt: h.clock.now(),
    });
    h.setState({ ...h.state(), phase: "running", run, nextRunAt: null });
    await h.alarm();
    expect(h.ledger.runs).toMatchObject([
      { id: "evicted", status: "failed", errorCode: "run_interrupted" },
      { id: "run-1", status: "succeeded", attempt: 2 },
    ]);
  });
});

describe("statements and dismissals in a run", () => {
  const dismissal = (seq: number, text: string, ...itemIds: string[]) => ({
    id: `d-${seq}`,
    seq,
    statementId: `s-${seq}`,
    section: "Work",
    text,
    itemIds,
    reason: null,
    at: new Date("2025-06-01T00:00:00Z"),
  });

  it("stamps the version's statements: one carried unchanged keeps its id and first-stated date", async () => {
    const generator = new FakeGenerator(
      { kind: "accept", statements: [say("Leads payments", "i1"), say("Ships in March", "i2")] },
      { kind: "accept", statements: [say("Leads payments", "i1"), say("Ships in April", "i2")] },
    );
    const h = harness(generator);
    let n = 0;
    h.deps.newStatementId = () => `stmt-${++n}`;
    h.request("read");
    await h.alarm();
    const firstAt = h.clock.now().toISOString();
    h.clock.advance(2 * 60 * MIN);
    h.request("manual");
    await h.alarm();
    expect(h.ledger.versions.map((v) => v.statements.map((s) => [s.text, s.id, s.firstStated]))).toEqual([
      [
        ["Leads payments", "stmt-1", firstAt],
        ["Ships in March", "stmt-2", firstAt],
      ],
      [
        ["Leads payments", "stmt-1", firstAt],
        ["Ships in April", "stmt-3", h.clock.now().toISOString()],
      ],
    ]);
  });

  it("tells the generator what was dismissed, and drops a restatement of one made while it generated", async () => {
    const generator = new FakeGenerator({
      kind: "accept",
      statements: [say("Leads payments", "i1"), say("Ships in March", "i2"), say("Owns the budget", "i3")],
    });
    const h = harness(generator);
    h.ledger.dismissed.set(SUBJECT, [dismissal(1, "Owns the budget", "i3")]);
    const generate = generator.generate.bind(generator);
    generator.generate = async (request, signal) => {
      // The subject dismisses another statement while the run is generating.
      h.ledger.dismissed.set(SUBJECT, [
        dismissal(2, "Ships in March", "i2"),
        dismissal(1, "Owns the budget", "i3"),
      ]);
      return generate(request, signal);
    };
    h.request("read");
    await h.alarm();
    expect(generator.requests[0]!.dismissed?.map((d) => d.text)).toEqual(["Owns the budget"]);
    // The fake generator does not apply the check; the run drops the restatement it could not have known.
    expect(h.ledger.versions[0]!.statements.map((s) => s.text)).toEqual([
      "Leads payments",
      "Owns the budget",
    ]);
    expect(h.ledger.runs[0]).toMatchObject({
      status: "succeeded",
      salvaged: { dropped: 1, statements: [{ text: "Ships in March", cause: "dismissed" }] },
    });
  });

  it("refuses its version when the subject dismisses a statement after the run's last look, and tries again", async () => {
    const generator = new FakeGenerator({ kind: "accept", statements: [say("Leads payments", "i1")] });
    const h = harness(generator);
    const accept = h.ledger.runAccepted.bind(h.ledger);
    h.ledger.runAccepted = async (...args) => {
      h.ledger.dismissed.set(SUBJECT, [dismissal(7, "Something else", "i2")]);
      return accept(...args);
    };
    h.request("read");
    await h.alarm();
    expect(h.ledger.versions).toEqual([]);
    expect(h.ledger.runs[0]).toMatchObject({ status: "failed", errorCode: "statement_dismissed" });
    expect(h.state()).toMatchObject({ phase: "backoff", lastError: { code: "statement_dismissed" } });
  });
});
