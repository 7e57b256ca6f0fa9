/**
 * One read of GET /admin/embeddings for a bench that waits on the embeddings queue. A read the local server
 * drops or times out while the consumer keeps it busy answers null (the caller asks again at its next poll),
 * not the end of the run.
 */
export interface EmbeddingStatus {
  items: number;
  indexed: number;
  pending: number;
  dimensions: number | null;
  /** The model's vector index (null before the model's size is known). */
  vectorIndex: "ready" | "building" | "missing" | null;
}

/**
 * The pause before a bench's next read of a workspace holding `items` items: 100 ms, and 20 ms more for each
 * 1,000 items (2.1 s at 100,000). GET /admin/embeddings counts every item of the workspace with a lookup of its
 * first chunk (about 0.6 s of database time at 102,000 items): read again 100 ms after each answer, it kept a
 * PostgreSQL backend busy beside the queue it measured (1,043 items/s for 100,000 items, against 1,256 read
 * every 2 s). The pause is a read's resolution: 3% of the time 100,000 items take, 2-5% of 5,000's.
 */
export function pauseBeforeRead(items: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 100 + items / 50));
}

export async function embeddingStatus(
  url: string,
  headers: Record<string, string>,
): Promise<EmbeddingStatus | null> {
  try {
    const res = await fetch(`${url}/admin/embeddings`, { headers });
    if (res.ok) return (await res.json()) as EmbeddingStatus;
    console.error(`[bench] GET /admin/embeddings answered ${res.status}; asking again`);
  } catch (error) {
    console.error(
      `[bench] GET /admin/embeddings failed (${String((error as Error).cause ?? error)}); asking again`,
    );
  }
  return null;
}
