import { describe, expect, it } from "vitest";
import {
  type FanOutLimits,
  planSends,
  type SweepMessage,
  spreadOffset,
  worstCaseSends,
} from "../../src/memory/sweep-fanout";
import { type SweepCursorStore, type SweepDeps, type SweepOptions, sweep } from "../../src/memory/sweep-plan";
import type { SweepPage } from "../../src/memory/sweep-source";
import { FakeClock } from "../support/fakes/fake-clock";

const DAY = 24 * 3600_000;

/** Subjects in key order; `changed` ones need a run, the others are skipped (as the page query does). */
type SweepStore = SweepDeps["store"];
type SweepAgents = SweepDeps["agents"];

class FakeStore implements SweepStore {
  readonly calls: (string | null)[] = [];
  /** Calls numbered (from 1) here throw, as a database round trip past its deadline does. */
  failing = new Set<number>();
  constructor(private readonly subjects: { id: string; changed: boolean }[]) {}

  async sweepPage({ after, limit }: { after: string | null; limit: number }): Promise<SweepPage> {
    this.calls.push(after);
    if (this.failing.has(this.calls.length)) throw new Error("database_unavailable");
    const page = this.subjects.filter((s) => after === null || s.id > after).slice(0, limit);
    return {
      checked: page.length,
      skipped: page.filter((s) => !s.changed).length,
      toDispatch: page.filter((s) => s.changed).map((s) => s.id),
      lastKey: page.at(-1)?.id ?? null,
    };
  }
}

class FakeAgents implements SweepAgents {
  readonly requests: { subjectKey: string; notBefore: number | undefined }[] = [];
  async requestRefresh(subjectKey: string, _reason: string, options?: { notBefore?: number }) {
    this.requests.push({ subjectKey, notBefore: options?.notBefore });
    return { status: "scheduled" as const, runAt: options?.notBefore ?? 0 };
  }
}

class FakeQueue {
  readonly sends: SweepMessage[][] = [];
  /** Sends numbered (from 1) here throw. */
  failing = new Set<number>();
  private attempts = 0;
  async send(messages: SweepMessage[]): Promise<void> {
    this.attempts++;
    if (this.failing.has(this.attempts)) throw new Error("queue unavailable");
    this.sends.push(messages);
  }
  ids(): string[] {
    return this.sends.flat().flatMap((m) => m.subjectKeys);
  }
}

class FakeCursor implements SweepCursorStore {
  readonly saves: (string | null)[] = [];
  /** How many of the next loads and saves throw. */
  failLoads = 0;
  failSaves = 0;
  constructor(public value: string | null = null) {}
  async load() {
    if (this.failLoads-- > 0) throw new Error("database_unavailable");
    return this.value;
  }
  async save(after: string | null) {
    if (this.failSaves-- > 0) throw new Error("database_unavailable");
    this.saves.push(after);
    this.value = after;
  }
}

const LIMITS: FanOutLimits = {
  idsPerMessage: 4,
  bytesPerMessage: 10_000,
  messagesPerSend: 2,
  bytesPerSend: 100_000,
};
const options = (over: Partial<SweepOptions> = {}): SweepOptions => ({
  ttlMs: DAY,
  pageSize: 10,
  maxDispatch: 3,
  maxRoundTrips: 1000,
  spreadMs: DAY,
  concurrency: 2,
  fanOut: LIMITS,
  maxSubjectIdLength: 8,
  ...over,
});
const key = (n: number) => `s-${String(n).padStart(3, "0")}`;
/** Subjects s-000.. ; every one with n % 5 === 0 is unchanged. */
const subjects = (count: number) =>
  Array.from({ length: count }, (_, n) => ({ id: key(n), changed: n % 5 !== 0 }));

function world(count: number, cursor = new FakeCursor()) {
  const store = new FakeStore(subjects(count));
  const agents = new FakeAgents();
  const queue = new FakeQueue();
  const clock = new FakeClock();
  return { store, agents, queue, cursor, clock, deps: { store, agents, queue, cursor, clock } };
}

describe("the sweep's fan-out through the queue", () => {
  it("dispatches the first maxDispatch subjects itself and enqueues the rest, packed into messages and sends", async () => {
    const w = world(25);
    const report = await sweep(w.deps, options());

    const changed = subjects(25)
      .filter((s) => s.changed)
      .map((s) => s.id);
    expect(w.agents.requests.map((r) => r.subjectKey)).toEqual(changed.slice(0, 3));
    expect(w.queue.ids()).toEqual(changed.slice(3));
    for (const send of w.queue.sends) {
      expect(send.length).toBeLessThanOrEqual(LIMITS.messagesPerSend);
      for (const m of send) {
        expect(m.subjectKeys.length).toBeLessThanOrEqual(LIMITS.idsPerMessage);
        expect(m).toMatchObject({ sweptAt: w.clock.now().getTime(), spreadMs: DAY });
      }
    }
    const sweptAt = w.clock.now().getTime();
    for (const r of w.agents.requests) expect(r.notBefore).toBe(sweptAt + spreadOffset(r.subjectKey, DAY));
    expect(report).toMatchObject({
      checked: 25,
      skipped: 5,
      dispatched: 3,
      enqueued: 17,
      messages: 5,
      sends: 3,
      enqueueFailed: 0,
      pages: 3,
      complete: true,
      resumeAfter: null,
    });
    // Cursor load, three pages, three sends; nothing to save.
    expect(report.roundTrips).toBe(7);
    expect(w.cursor.saves).toEqual([]);
  });

  it("stops within its round-trip bound, saves where to resume, and the next invocation goes on from there", async () => {
    const cursor = new FakeCursor();
    const first = world(70, cursor);
    // A page is read only while its two attempts, worstCaseSends(10 ids of 8 characters) = 2 sends, a
    // final send and the save's two attempts still fit: three pages here.
    const bounded = options({ maxRoundTrips: 11 });
    const one = await sweep(first.deps, bounded);
    expect(one).toMatchObject({
      complete: false,
      pages: 3,
      resumedFrom: null,
      resumeAfter: key(29),
      roundTrips: 8,
    });
    expect(cursor.value).toBe(key(29));

    const second = world(70, cursor);
    const two = await sweep(second.deps, bounded);
    expect(second.store.calls[0]).toBe(key(29));
    expect(two).toMatchObject({ resumedFrom: key(29), resumeAfter: key(59), complete: false });
    expect(two.roundTrips).toBeLessThanOrEqual(11);

    const third = world(70, cursor);
    const three = await sweep(third.deps, options());
    expect(three).toMatchObject({ resumedFrom: key(59), complete: true, resumeAfter: null, checked: 10 });
    expect(cursor.value).toBeNull();

    // Together the three invocations handed every changed subject over exactly once.
    const handed = [first, second, third].flatMap((w) => [
      ...w.agents.requests.map((r) => r.subjectKey),
      ...w.queue.ids(),
    ]);
    expect(handed).toEqual(
      subjects(70)
        .filter((s) => s.changed)
        .map((s) => s.id),
    );
  });

  it("reads a page that failed once more and goes on", async () => {
    const w = world(25);
    w.store.failing.add(2);
    const failures: unknown[] = [];
    const report = await sweep({ ...w.deps, roundTripFailed: (e) => failures.push(e) }, options());

    expect(report).toMatchObject({ complete: true, pages: 3, failedRoundTrips: 1, checked: 25, skipped: 5 });
    expect(w.store.calls).toEqual([null, key(9), key(9), key(19)]);
    expect(failures).toHaveLength(1);
    // Cursor load, four page reads, three sends.
    expect(report.roundTrips).toBe(8);
    const changed = subjects(25)
      .filter((s) => s.changed)
      .map((s) => s.id);
    expect([...w.agents.requests.map((r) => r.subjectKey), ...w.queue.ids()]).toEqual(changed);
  });

  it("stops at a page that fails twice, sends what it holds, saves its place, and the next invocation goes on", async () => {
    const cursor = new FakeCursor();
    const first = world(50, cursor);
    first.store.failing = new Set([3, 4]);
    const one = await sweep(first.deps, options());
    expect(one).toMatchObject({
      complete: false,
      pages: 2,
      failedRoundTrips: 2,
      cursorSaved: true,
      checked: 20,
      resumedFrom: null,
      resumeAfter: key(19),
    });
    expect(cursor.value).toBe(key(19));
    // Everything of the two pages read was handed over: nothing waits in memory for a send.
    const firstChanged = subjects(20)
      .filter((s) => s.changed)
      .map((s) => s.id);
    expect([...first.agents.requests.map((r) => r.subjectKey), ...first.queue.ids()]).toEqual(firstChanged);

    const second = world(50, cursor);
    const two = await sweep(second.deps, options());
    expect(second.store.calls[0]).toBe(key(19));
    expect(two).toMatchObject({ complete: true, resumedFrom: key(19), resumeAfter: null, checked: 30 });
    expect(cursor.value).toBeNull();
    const handed = [first, second].flatMap((w) => [
      ...w.agents.requests.map((r) => r.subjectKey),
      ...w.queue.ids(),
    ]);
    expect(handed).toEqual(
      subjects(50)
        .filter((s) => s.changed)
        .map((s) => s.id),
    );
  });

  it("answers its report, saving nothing, when the cursor cannot be read twice", async () => {
    const w = world(25, new FakeCursor(key(9)));
    w.cursor.failLoads = 2;
    const report = await sweep(w.deps, options());
    expect(report).toMatchObject({ pages: 0, complete: false, cursorSaved: false, failedRoundTrips: 2 });
    expect(report.roundTrips).toBe(2);
    expect(w.store.calls).toEqual([]);
    expect(w.cursor.saves).toEqual([]);
    expect(w.cursor.value).toBe(key(9));
  });

  it("retries a failed save, and answers its report when the save fails twice", async () => {
    const once = world(50);
    once.store.failing = new Set([3, 4]);
    once.cursor.failSaves = 1;
    expect(await sweep(once.deps, options())).toMatchObject({ complete: false, cursorSaved: true });
    expect(once.cursor.value).toBe(key(19));

    const twice = world(50);
    twice.store.failing = new Set([3, 4]);
    twice.cursor.failSaves = 2;
    const report = await sweep(twice.deps, options());
    expect(report).toMatchObject({ complete: false, resumeAfter: key(19), cursorSaved: false });
    expect(twice.cursor.value).toBeNull();
  });

  it("stops at a failed send and resumes before the subjects that send held", async () => {
    const cursor = new FakeCursor();
    const failing = world(40, cursor);
    failing.queue.failing.add(2);
    // One message a send: the second send (after page two) fails while an id of page one is still pending,
    // so the next invocation starts over from the beginning, not after page two.
    const oneMessage = options({ fanOut: { ...LIMITS, messagesPerSend: 1 } });
    const report = await sweep(failing.deps, oneMessage);
    expect(report).toMatchObject({ complete: false, sends: 1, enqueued: 4, enqueueFailed: 4, pages: 2 });
    expect(report.resumeAfter).toBeNull();
    expect(cursor.saves).toEqual([]);

    cursor.value = key(9);
    const later = world(40, cursor);
    later.queue.failing.add(1);
    const again = await sweep(later.deps, oneMessage);
    expect(again).toMatchObject({ complete: false, sends: 0, resumedFrom: key(9), resumeAfter: key(9) });
  });

  it("never builds a send or message past the queue's limits, and worstCaseSends bounds what a page needs", () => {
    const limits: FanOutLimits = {
      idsPerMessage: 450,
      bytesPerMessage: 2_000,
      messagesPerSend: 3,
      bytesPerSend: 5_000,
    };
    const longIds = Array.from({ length: 100 }, (_, n) => `${"x".repeat(60)}-${n}`);
    const sends = planSends(longIds, { sweptAt: 1, spreadMs: 0 }, limits);
    for (const send of sends) {
      expect(send.messages.length).toBeLessThanOrEqual(3);
      expect(JSON.stringify(send.messages).length).toBeLessThanOrEqual(5_000);
      for (const m of send.messages) expect(JSON.stringify(m).length).toBeLessThanOrEqual(2_000);
    }
    expect(sends.flatMap((s) => s.messages.flatMap((m) => m.subjectKeys))).toEqual(longIds);
    expect(sends.length).toBeLessThanOrEqual(worstCaseSends(longIds.length, 64, limits));
    const maxIds = Array.from({ length: 100 }, (_, n) => `${"é".repeat(250)}${String(n).padStart(5, "0")}`);
    expect(planSends(maxIds, { sweptAt: 1, spreadMs: 0 }, limits).length).toBeLessThanOrEqual(
      worstCaseSends(maxIds.length, 255, limits),
    );
    expect(planSends([], { sweptAt: 1, spreadMs: 0 }, limits)).toEqual([]);
  });
});
