/**
 * What keeps a run's writes honest inside its MemoryAgent: a write happens only while the run still holds
 * the agent (not after its lease was taken over, nor after an erase wiped the agent), every write in flight
 * is tracked so an erase can wait for it, and the run's generation can be aborted from outside.
 */
export type Guarded<T> = { written: true; value: T } | { written: false };

export class RunGuard {
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly controllers = new Map<string, AbortController>();

  /** `holds(runId)`: whether the agent's stored state still names this run as its active one. */
  constructor(private readonly holds: (runId: string) => boolean) {}

  /** Runs `work` only if the run still holds the agent; the check and the start of the write are one step. */
  async write<T>(runId: string, work: () => Promise<T>): Promise<Guarded<T>> {
    if (!this.holds(runId)) return { written: false };
    const pending = work();
    this.inflight.add(pending);
    try {
      return { written: true, value: await pending };
    } finally {
      this.inflight.delete(pending);
    }
  }

  /** Whether the run may still do anything (call the LLM, write). */
  allows(runId: string): boolean {
    return this.holds(runId) && !this.controllers.get(runId)?.signal.aborted;
  }

  /** The signal generation runs under: fires after `timeoutMs`, or when abortAll() is called. */
  signalFor(runId: string, timeoutMs: number): AbortSignal {
    const controller = new AbortController();
    this.controllers.set(runId, controller);
    return AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)]);
  }

  release(runId: string): void {
    this.controllers.delete(runId);
  }

  /** An erase: aborts every run's generation, then waits for the writes already in flight to land. */
  async abortAndDrain(reason: string): Promise<void> {
    for (const controller of this.controllers.values()) controller.abort(new Error(reason));
    this.controllers.clear();
    await Promise.allSettled([...this.inflight]);
  }
}
