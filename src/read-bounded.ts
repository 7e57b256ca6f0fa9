/**
 * Reads a byte stream whole, up to `maxBytes`. Past the bound it returns null, after either cancelling the
 * stream (inbound mail: nothing else waits on it) or draining it to its end (an HTTP request body: cancelling
 * mid-upload stalled `wrangler dev`'s proxy for every later request), within `drainLimitBytes`.
 */
export async function readBounded(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  overflow: { drainLimitBytes: number } | "cancel",
): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      if (overflow === "cancel") await reader.cancel();
      else await drain(reader, overflow.drainLimitBytes);
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Reads and discards the rest of a stream; past `limit` bytes it is cancelled after all. */
export async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number): Promise<void> {
  let left = limit;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    left -= value.byteLength;
    if (left < 0) {
      await reader.cancel();
      return;
    }
  }
}
