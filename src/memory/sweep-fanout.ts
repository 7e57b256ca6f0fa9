/**
 * The sweep's hand-over to MemoryAgents, directly or through a queue: the queue message, how subject ids
 * are packed into messages and sends, and the dispatch both the sweep and the queue consumer use.
 */
import type { MemoryAgents } from "./memory-agents-port";

/** One queue message: subjects to hand to their agents, with the sweep's start and spread window. */
export interface SweepMessage {
  subjectKeys: string[];
  /** Epoch ms the sweep started; each subject starts at sweptAt + spreadOffset(id, spreadMs). */
  sweptAt: number;
  spreadMs: number;
}

/** The queue port: one call is one send (one subrequest) of at most `FanOutLimits` messages and bytes. */
export interface SweepQueue {
  send(messages: SweepMessage[]): Promise<void>;
}

export interface FanOutLimits {
  /** Subject ids per message (the consumer makes one agent call per id). */
  idsPerMessage: number;
  /** Serialized size of one message. */
  bytesPerMessage: number;
  messagesPerSend: number;
  /** Serialized size of all the messages of one send. */
  bytesPerSend: number;
}

const encoder = new TextEncoder();
/** A message's JSON without ids; ids add their JSON string plus a comma each. */
const MESSAGE_OVERHEAD = 96;
const idBytes = (id: string) => encoder.encode(id).length + 3;

/**
 * Packs ids (in order) into messages, and messages into sends, within the limits. Every send but the last
 * is full (the next message would not have fitted), so a caller can send those and keep the rest.
 */
export function planSends(
  subjectKeys: string[],
  base: Omit<SweepMessage, "subjectKeys">,
  limits: FanOutLimits,
): { messages: SweepMessage[]; bytes: number }[] {
  const sends: { messages: SweepMessage[]; bytes: number }[] = [];
  let send: { messages: SweepMessage[]; bytes: number } = { messages: [], bytes: 0 };
  let ids: string[] = [];
  let bytes = MESSAGE_OVERHEAD;
  const closeMessage = () => {
    if (ids.length === 0) return;
    if (
      send.messages.length >= limits.messagesPerSend ||
      (send.messages.length > 0 && send.bytes + bytes > limits.bytesPerSend)
    ) {
      sends.push(send);
      send = { messages: [], bytes: 0 };
    }
    send.messages.push({ ...base, subjectKeys: ids });
    send.bytes += bytes;
    ids = [];
    bytes = MESSAGE_OVERHEAD;
  };
  for (const id of subjectKeys) {
    const size = idBytes(id);
    if (ids.length >= limits.idsPerMessage || (ids.length > 0 && bytes + size > limits.bytesPerMessage)) {
      closeMessage();
    }
    ids.push(id);
    bytes += size;
  }
  closeMessage();
  if (send.messages.length > 0) sends.push(send);
  return sends;
}

/** Sends the worst case of `idCount` ids of `maxIdLength` characters can need (an upper bound). */
export function worstCaseSends(idCount: number, maxIdLength: number, limits: FanOutLimits): number {
  if (idCount <= 0) return 0;
  const perId = maxIdLength * 3 + 3;
  const idsPerMessage = Math.max(
    1,
    Math.min(limits.idsPerMessage, Math.floor((limits.bytesPerMessage - MESSAGE_OVERHEAD) / perId)),
  );
  const messageBytes = MESSAGE_OVERHEAD + idsPerMessage * perId;
  const messagesPerSend = Math.max(
    1,
    Math.min(limits.messagesPerSend, Math.floor(limits.bytesPerSend / messageBytes)),
  );
  return Math.ceil(idCount / (idsPerMessage * messagesPerSend));
}

/** Hands subjects to their agents, `concurrency` at a time, starts spread; returns the ids that failed. */
export async function dispatchToAgents(
  agents: Pick<MemoryAgents, "requestRefresh">,
  subjectKeys: string[],
  at: { sweptAt: number; spreadMs: number },
  concurrency: number,
): Promise<{ dispatched: number; failed: string[] }> {
  let dispatched = 0;
  const failed: string[] = [];
  for (let i = 0; i < subjectKeys.length; i += concurrency) {
    const chunk = subjectKeys.slice(i, i + concurrency);
    const results = await Promise.allSettled(
      chunk.map((id) =>
        agents.requestRefresh(id, "sweep", { notBefore: at.sweptAt + spreadOffset(id, at.spreadMs) }),
      ),
    );
    results.forEach((r, j) => {
      if (r.status === "fulfilled") dispatched++;
      else failed.push(chunk[j]!);
    });
  }
  return { dispatched, failed };
}

/** A stable offset in [0, spreadMs) from the subject id (FNV-1a): spreads starts without knowing the total. */
export function spreadOffset(subjectKey: string, spreadMs: number): number {
  if (spreadMs <= 0) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < subjectKey.length; i++) {
    hash ^= subjectKey.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return Math.floor((hash / 2 ** 32) * spreadMs);
}
