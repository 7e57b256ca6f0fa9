/**
 * A .zip archive's table of contents, read from its central directory (ZIP64 included): each entry's name,
 * compression method and where its compressed bytes lie. Platform-neutral: it reads through a
 * RandomAccess, so an archive of any size is never held whole. The uncompressed sizes an archive declares
 * are not read at all: what an entry holds is only known by inflating it (zip.ts).
 */

/** Reads byte ranges of a file (the CLI's is a file handle; tests use bytes in memory). */
export interface RandomAccess {
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate; anything else is reported as unsupported. */
  method: number;
  encrypted: boolean;
  /** Where the entry's local header starts, and its compressed length. */
  localHeaderOffset: number;
  compressedSize: number;
}

export class ZipFormatError extends Error {}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_COMMENT = 0xffff;

const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u32 = (b: Uint8Array, at: number) =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 2 ** 24;
const u64 = (b: Uint8Array, at: number) => u32(b, at) + u32(b, at + 4) * 2 ** 32;

const utf8 = new TextDecoder("utf-8");
const latin1 = new TextDecoder("latin1");

export async function readZipDirectory(source: RandomAccess): Promise<ZipEntry[]> {
  const tailLength = Math.min(source.size, 22 + MAX_COMMENT + 20);
  const tailStart = source.size - tailLength;
  const tail = await source.read(tailStart, tailLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (u32(tail, i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) throw new ZipFormatError("not a zip archive (no end of central directory)");
  let count = u16(tail, eocd + 10);
  let directorySize = u32(tail, eocd + 12);
  let directoryOffset = u32(tail, eocd + 16);
  if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || u32(tail, locator) !== ZIP64_LOCATOR)
      throw new ZipFormatError("ZIP64 archive without its end-of-directory locator");
    const at = u64(tail, locator + 8);
    if (at + 56 > source.size) throw new ZipFormatError("ZIP64 end of directory out of range");
    const record = await source.read(at, 56);
    if (u32(record, 0) !== ZIP64_EOCD) throw new ZipFormatError("ZIP64 end of directory not found");
    count = u64(record, 32);
    directorySize = u64(record, 40);
    directoryOffset = u64(record, 48);
  }
  if (directoryOffset + directorySize > source.size)
    throw new ZipFormatError("central directory out of range: the archive is truncated?");
  const directory = await source.read(directoryOffset, directorySize);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > directory.length || u32(directory, p) !== CENTRAL)
      throw new ZipFormatError(`central directory entry ${n + 1} is malformed`);
    const flags = u16(directory, p + 8);
    const nameLength = u16(directory, p + 28);
    const extraLength = u16(directory, p + 30);
    const commentLength = u16(directory, p + 32);
    const nameBytes = directory.subarray(p + 46, p + 46 + nameLength);
    let compressedSize = u32(directory, p + 20);
    const uncompressed32 = u32(directory, p + 24);
    let localHeaderOffset = u32(directory, p + 42);
    // ZIP64 extra field: the 64-bit values, in this order, of the fields that were 0xFFFFFFFF.
    const extra = directory.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
    for (let e = 0; e + 4 <= extra.length; ) {
      const id = u16(extra, e);
      const size = u16(extra, e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        if (uncompressed32 === 0xffffffff) q += 8;
        if (compressedSize === 0xffffffff && q + 8 <= e + 4 + size) {
          compressedSize = u64(extra, q);
          q += 8;
        }
        if (localHeaderOffset === 0xffffffff && q + 8 <= e + 4 + size) localHeaderOffset = u64(extra, q);
      }
      e += 4 + size;
    }
    entries.push({
      name: (flags & 0x800 ? utf8 : latin1).decode(nameBytes),
      method: u16(directory, p + 10),
      encrypted: (flags & 1) === 1,
      localHeaderOffset,
      compressedSize,
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Where an entry's compressed bytes start: after its local header, whose name and extra field may differ. */
export async function entryDataOffset(source: RandomAccess, entry: ZipEntry): Promise<number> {
  if (entry.localHeaderOffset + 30 > source.size) throw new ZipFormatError("local header out of range");
  const header = await source.read(entry.localHeaderOffset, 30);
  if (u32(header, 0) !== LOCAL) throw new ZipFormatError("local header not found");
  const start = entry.localHeaderOffset + 30 + u16(header, 26) + u16(header, 28);
  if (start + entry.compressedSize > source.size) throw new ZipFormatError("entry data out of range");
  return start;
}

/** Bytes in memory as a RandomAccess (tests, and small archives). */
export function bytesSource(bytes: Uint8Array): RandomAccess {
  return {
    size: bytes.length,
    read: async (offset, length) => bytes.subarray(offset, offset + length),
  };
}
