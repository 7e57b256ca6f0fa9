/** The fake LLM's mutable state: registered scripts and faults, and the recorded requests. */
import type {
  FakeRole,
  FakeTurn,
  FaultSpec,
  FaultState,
  RecordedRequest,
  ScriptSpec,
  ScriptState,
} from "./protocol";

/** Recorded requests kept (oldest dropped first), so a long `npm run dev` session stays small. */
const MAX_RECORDED = 2000;

interface Script extends Omit<ScriptState, "requests" | "remaining"> {
  turns: FakeTurn[];
  requests: RecordedRequest[];
}

interface Selected {
  text: string;
  role: FakeRole;
}

const applies = (sel: { match: string; role?: string }, req: Selected) =>
  req.text.includes(sel.match) && (sel.role === undefined || sel.role === req.role);

export class FakeLlmState {
  private nextId = 1;
  private seq = 0;
  private readonly scripts = new Map<string, Script>();
  private readonly faults = new Map<string, FaultState>();
  private readonly recorded: RecordedRequest[] = [];

  addScript(spec: ScriptSpec): string {
    const id = `s${this.nextId++}`;
    this.scripts.set(id, {
      id,
      match: spec.match,
      role: spec.role,
      consumed: 0,
      turns: [...spec.turns],
      requests: [],
    });
    return id;
  }

  addFault(spec: FaultSpec): string {
    const id = `f${this.nextId++}`;
    this.faults.set(id, {
      id,
      match: spec.match,
      role: spec.role,
      fault: spec.fault,
      remaining: spec.times ?? 1,
      hits: 0,
    });
    return id;
  }

  script(id: string): ScriptState | undefined {
    const s = this.scripts.get(id);
    if (!s) return undefined;
    return {
      id: s.id,
      match: s.match,
      role: s.role,
      consumed: s.consumed,
      remaining: s.turns.slice(s.consumed),
      requests: s.requests,
    };
  }

  fault(id: string): FaultState | undefined {
    return this.faults.get(id);
  }

  deleteScript(id: string): boolean {
    return this.scripts.delete(id);
  }

  deleteFault(id: string): boolean {
    return this.faults.delete(id);
  }

  /** The first registered fault that applies and has uses left (skipping `skip`), consumed. */
  takeFault(req: Selected, skip: Set<string>): FaultState | undefined {
    for (const fault of this.faults.values()) {
      if (skip.has(fault.id) || fault.remaining <= 0 || !applies(fault, req)) continue;
      fault.remaining--;
      fault.hits++;
      return fault;
    }
    return undefined;
  }

  /** The next turn of the first registered script that applies and has turns left, consumed. */
  takeTurn(req: Selected): { scriptId: string; turn: FakeTurn } | undefined {
    for (const script of this.scripts.values()) {
      const turn = script.turns[script.consumed];
      if (turn === undefined || !applies(script, req)) continue;
      script.consumed++;
      return { scriptId: script.id, turn };
    }
    return undefined;
  }

  record(entry: Omit<RecordedRequest, "seq">, scriptId?: string): RecordedRequest {
    const recorded = { seq: ++this.seq, ...entry };
    this.recorded.push(recorded);
    if (this.recorded.length > MAX_RECORDED) this.recorded.shift();
    if (scriptId) this.scripts.get(scriptId)?.requests.push(recorded);
    return recorded;
  }

  requests(filter: { match?: string; role?: string }): RecordedRequest[] {
    return this.recorded.filter(
      (r) =>
        (filter.role === undefined || r.role === filter.role) &&
        (filter.match === undefined ||
          JSON.stringify(r.body).includes(JSON.stringify(filter.match).slice(1, -1))),
    );
  }

  /** Forgets everything (for a long-running `npm run dev` session; tests delete their own entries instead). */
  reset(): void {
    this.scripts.clear();
    this.faults.clear();
    this.recorded.length = 0;
  }
}
