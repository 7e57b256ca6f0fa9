/**
 * Material changes: recorded in Postgres (the sweep reads material_changed_at), then the subjects' agents
 * are told why, once each: "ingest" (debounced by the agent) or "delete" (a redacted memory, refreshed
 * soon). At most MAX_NOTIFIED_SUBJECTS agents are poked per change; material_changed_at covers the rest.
 */
import type { MaterialChangeCause, MaterialChangeRecorder, MemoryEvents } from "../domain/memory-events";
import type { MemoryAgents } from "./memory-agents-port";

export const MAX_NOTIFIED_SUBJECTS = 50;

export interface MaterialChangeDeps {
  recorder: MaterialChangeRecorder;
  agents: Pick<MemoryAgents, "requestRefresh">;
  /** Runs the pokes after the answer (waitUntil). */
  defer(work: Promise<unknown>): Promise<void>;
}

export function createMemoryEvents({ recorder, agents, defer }: MaterialChangeDeps): MemoryEvents {
  const notifyAgents = async (subjectKeys: string[], cause: MaterialChangeCause) => {
    const poked = [...new Set(subjectKeys)].slice(0, MAX_NOTIFIED_SUBJECTS);
    if (poked.length === 0) return;
    await defer(Promise.allSettled(poked.map((key) => agents.requestRefresh(key, cause))));
  };
  return {
    async materialChanged(subjectKeys, cause, notify = subjectKeys) {
      await recorder.record(subjectKeys);
      await notifyAgents(notify, cause);
    },
    notifyAgents,
  };
}
