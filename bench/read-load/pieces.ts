/** The pieces of a GET /memory cache hit that bench/read-load/worker.ts can take away, one at a time. */
export const PIECES = ["token", "services", "kv", "decision", "serialise", "audit"] as const;
export type Piece = (typeof PIECES)[number];
