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
