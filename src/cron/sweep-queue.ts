/** The sweep's queue port over a Cloudflare Queue producer binding: one send is one sendBatch call. */
import type { SweepMessage, SweepQueue } from "../memory/sweep-fanout";

export function createSweepQueue(queue: Queue<SweepMessage>): SweepQueue {
  return {
    async send(messages) {
      await queue.sendBatch(messages.map((body) => ({ body, contentType: "json" as const })));
    },
  };
}
