/** The sweep's fan-out queue over a Cloudflare Queue binding. */
import type { SweepMessage, SweepQueue } from "../memory/sweep-fanout";

export function createSweepQueue(queue: Queue<SweepMessage>): SweepQueue {
  return {
    async send(messages) {
      await queue.sendBatch(messages.map((body) => ({ body, contentType: "json" as const })));
    },
  };
}
