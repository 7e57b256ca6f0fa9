/** The embeddings queue over a Cloudflare Queue binding. */
import type { EmbedMessage, EmbedQueue } from "../domain/item-embedding";

export function createEmbedQueue(queue: Queue<EmbedMessage>): EmbedQueue {
  return {
    async send(messages) {
      if (messages.length === 0) return;
      await queue.sendBatch(messages.map((body) => ({ body, contentType: "json" as const })));
    },
  };
}
