/** Small hostile inputs for the importer tests: zips that lie about their sizes, and a clock for linear-time checks. */
import { zipSync } from "fflate";

/**
 * A .zip of the given files (deflated); `declare` rewrites an entry's declared uncompressed size in both its
 * local header and its central directory record, as a hostile archive would.
 */
export function zipOf(
  files: Record<string, string | Uint8Array>,
  declare: Record<string, number> = {},
): Uint8Array {
  const encoder = new TextEncoder();
  const zip = zipSync(
    Object.fromEntries(
      Object.entries(files).map(([name, data]) => [
        name,
        typeof data === "string" ? encoder.encode(data) : data,
      ]),
    ),
    { level: 6 },
  );
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const decoder = new TextDecoder();
  for (let at = 0; at + 4 <= zip.length; at++) {
    const signature = view.getUint32(at, true);
    const local = signature === 0x04034b50;
    if (!local && signature !== 0x02014b50) continue;
    const nameLength = view.getUint16(at + (local ? 26 : 28), true);
    const nameAt = at + (local ? 30 : 46);
    const name = decoder.decode(zip.subarray(nameAt, nameAt + nameLength));
    const size = declare[name];
    if (size !== undefined) view.setUint32(at + (local ? 22 : 24), size, true);
  }
  return zip;
}

/** How long `work` takes, in milliseconds. */
export function elapsedMs(work: () => unknown): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

/** The bytes in pieces of `size` (how the CLI's 1 MB reads, or worse, deliver a file). */
export function chunks(data: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < data.length; i += size) out.push(data.subarray(i, i + size));
  return out;
}
