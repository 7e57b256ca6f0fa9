/**
 * An upload's bytes on their way in and out: the request body cut into the pieces the store keeps, and the
 * stored pieces read back as the format readers read a file (in chunks, whole, or by ranges for a .zip).
 */
import type { AppError } from "../domain/errors";
import type { ImportFileReader } from "../import/import-format";
import { IMPORT_CHUNK_BYTES, type ImportJob, type ImportStore } from "../import/import-jobs";
import { drain } from "../read-bounded";

/**
 * A failure of the database or the platform while an import runs (not of the file): rethrown as it was, so
 * the queue retries the message and the retry resumes from the last committed batch. Anything else thrown
 * while reading is the file's fault, and fails the import.
 */
export class PlatformFailure extends Error {
  constructor(cause: unknown) {
    super("platform failure", { cause });
  }
}

/** `work`, its failure wrapped as a PlatformFailure. */
export async function platform<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw new PlatformFailure(error);
  }
}

/** A refused upload is read to its end (see read-bounded.ts) up to Cloudflare's own request limit. */
const MAX_DRAIN_BYTES = 100 * 1024 * 1024;

/** The stored upload as the format readers read a file: piece by piece, whole, or by ranges (a .zip). */
export function uploadReader(store: ImportStore, job: ImportJob): ImportFileReader {
  const piece = async (seq: number) => {
    const data = await platform(store.piece(job.id, seq));
    if (!data) throw new Error(`piece ${seq} of the upload is missing`);
    return data;
  };
  async function* chunks() {
    for (let seq = 0; seq < job.chunks; seq++) yield await piece(seq);
  }
  return {
    chunks,
    async bytes() {
      const out = new Uint8Array(job.bytes);
      let offset = 0;
      for await (const data of chunks()) {
        out.set(data, offset);
        offset += data.length;
      }
      return out;
    },
    async randomAccess() {
      let cached: { seq: number; data: Uint8Array } | null = null;
      const at = async (seq: number) => {
        if (cached?.seq !== seq) cached = { seq, data: await piece(seq) };
        return cached.data;
      };
      return {
        size: job.bytes,
        async read(offset, length) {
          const end = Math.min(job.bytes, offset + length);
          const out = new Uint8Array(Math.max(0, end - offset));
          let filled = 0;
          while (offset + filled < end) {
            const seq = Math.floor((offset + filled) / IMPORT_CHUNK_BYTES);
            const data = await at(seq);
            const start = offset + filled - seq * IMPORT_CHUNK_BYTES;
            const take = data.subarray(start, Math.min(data.length, start + (end - offset - filled)));
            if (take.length === 0) break;
            out.set(take, filled);
            filled += take.length;
          }
          return out.subarray(0, filled);
        },
        close: async () => {},
      };
    },
  };
}

/**
 * The body in pieces of exactly `size` bytes (the last one shorter). Past `maxBytes` the rest is read and
 * discarded (cancelling mid-upload stalls some proxies) and payload_too_large is thrown.
 */
export async function* pieces(
  body: ReadableStream<Uint8Array>,
  size: number,
  maxBytes: number,
  tooLarge: () => AppError,
): AsyncIterable<Uint8Array> {
  const reader = body.getReader();
  let current = new Uint8Array(size);
  let filled = 0;
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await drain(reader, MAX_DRAIN_BYTES - total);
      throw tooLarge();
    }
    let offset = 0;
    while (offset < value.byteLength) {
      const take = Math.min(size - filled, value.byteLength - offset);
      current.set(value.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === size) {
        yield current;
        current = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield current.subarray(0, filled);
}
