/**
 * The text files inside a .zip (a Slack export), inflated entry by entry as a stream and counted as they
 * inflate: an entry past its limit stops there, is dropped (an error naming it and the limit) and the next
 * entry is read; once the entries kept pass the total limit, reading stops (an error naming the entry it
 * stopped at). The sizes the archive declares are never trusted: only the bytes actually inflated count.
 * So memory holds at most the total limit, and time is linear in the archive: a stopped entry costs at
 * most its limit (plus one step) of inflating, and needs ~1/1,000 of that in compressed bytes.
 * Platform-neutral: the archive is read through a RandomAccess, never whole.
 */
import { Inflate } from "fflate";
import {
  entryDataOffset,
  type RandomAccess,
  readZipDirectory,
  type ZipEntry,
  ZipFormatError,
} from "./zip-directory";

export interface ZipLimits {
  /** One entry's inflated bytes, and how the limit is named in the error (`128 MB (--max-file-mb)`). */
  maxEntryBytes: number;
  entryLimit: string;
  /** The inflated bytes of the entries kept, together (an entry stopped at its own limit is not kept). */
  maxTotalBytes: number;
  totalLimit: string;
}

export type ZipRead =
  | { type: "file"; path: string; text: string }
  | { type: "error"; path: string; message: string };

/** Compressed bytes fed to the inflater at a time: DEFLATE inflates at most ~1,032×, so ≤ 17 MB a step. */
const SLICE_BYTES = 16 * 1024;
const EMPTY = new Uint8Array(0);

export async function* unzipTextFiles(
  source: RandomAccess,
  accept: (name: string) => boolean,
  limits: ZipLimits,
): AsyncIterable<ZipRead> {
  let entries: ZipEntry[];
  try {
    entries = await readZipDirectory(source);
  } catch (error) {
    if (!(error instanceof ZipFormatError)) throw error;
    yield { type: "error", path: "archive", message: error.message };
    return;
  }
  // Shallow entries first (a Slack export's users.json and channels.json before its day files), so a
  // total limit reached late costs day files, not the lists every message needs.
  const depth = (name: string) => name.split("/").length;
  const wanted = entries
    .filter((e) => !e.name.endsWith("/") && accept(e.name))
    .sort((a, b) => depth(a.name) - depth(b.name));
  let total = 0;
  for (const [i, entry] of wanted.entries()) {
    if (entry.encrypted) {
      yield { type: "error", path: entry.name, message: "the entry is encrypted: not read" };
      continue;
    }
    if (entry.method !== 0 && entry.method !== 8) {
      yield {
        type: "error",
        path: entry.name,
        message: `compression method ${entry.method} is not supported`,
      };
      continue;
    }
    const read = await inflateEntry(source, entry, limits, limits.maxTotalBytes - total);
    if (read.type === "text") {
      total += read.inflated;
      yield { type: "file", path: entry.name, text: read.text };
    } else if (read.type === "failed") yield { type: "error", path: entry.name, message: read.message };
    else if (read.type === "entry-limit") {
      yield {
        type: "error",
        path: entry.name,
        message: `${entry.name} inflates to more than ${limits.entryLimit}: not read`,
      };
    } else {
      const rest = wanted.length - i - 1;
      yield {
        type: "error",
        path: entry.name,
        message: `the archive's files inflate to more than ${limits.totalLimit}: stopped at ${entry.name}; it and the ${rest} ${rest === 1 ? "entry" : "entries"} after it were not read`,
      };
      return;
    }
  }
}

type EntryRead =
  | { type: "text"; text: string; inflated: number }
  | { type: "entry-limit"; inflated: number }
  | { type: "total-limit"; inflated: number }
  | { type: "failed"; message: string; inflated: number };

async function inflateEntry(
  source: RandomAccess,
  entry: ZipEntry,
  limits: ZipLimits,
  totalLeft: number,
): Promise<EntryRead> {
  let start: number;
  try {
    start = await entryDataOffset(source, entry);
  } catch (error) {
    if (!(error instanceof ZipFormatError)) throw error;
    return { type: "failed", message: error.message, inflated: 0 };
  }
  // Bytes are kept as inflated and decoded only once the entry is known to be within its limit.
  const parts: Uint8Array[] = [];
  let inflated = 0;
  let over: "entry-limit" | "total-limit" | null = null;
  let ended = entry.compressedSize === 0;
  const take = (data: Uint8Array, final: boolean) => {
    if (over) return;
    inflated += data.length;
    if (inflated > limits.maxEntryBytes) over = "entry-limit";
    else if (inflated > totalLeft) over = "total-limit";
    else parts.push(data);
    if (final) ended = true;
  };
  const inflater = entry.method === 8 ? new Inflate(take) : null;
  try {
    for (let offset = 0; offset < entry.compressedSize && !over && !ended; offset += SLICE_BYTES) {
      const length = Math.min(SLICE_BYTES, entry.compressedSize - offset);
      const slice = await source.read(start + offset, length);
      const last = offset + length >= entry.compressedSize;
      if (inflater) inflater.push(slice, last);
      else take(slice, last);
    }
  } catch (error) {
    const message = `not valid DEFLATE data: ${error instanceof Error ? error.message : String(error)}`;
    return { type: "failed", message, inflated };
  }
  if (over) return { type: over, inflated };
  if (!ended) return { type: "failed", message: "the entry's compressed data ends early", inflated };
  return { type: "text", text: decodeParts(parts).replace(/^\uFEFF/, ""), inflated };
}

/** UTF-8 text of the parts, each released once decoded (so bytes and text are not both held whole). */
function decodeParts(parts: Uint8Array[]): string {
  const decoder = new TextDecoder("utf-8");
  const text: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    text.push(decoder.decode(parts[i], { stream: i < parts.length - 1 }));
    parts[i] = EMPTY;
  }
  return text.join("");
}
