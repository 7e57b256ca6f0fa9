/** The CLI's file side: expands the given paths (folders recursively) into files, and reads them. */
import { createReadStream } from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import { basename, join, relative } from "node:path";
import type { ImportFile, ImportFileReader } from "../../../src/import/import-format";
import type { RandomAccess } from "../../../src/import/zip-directory";

/** A file found on disk. */
export type InputFile = ImportFile;

/** Counts bytes read, for the progress line. */
export interface ByteCounter {
  read: number;
  total: number;
}

export class InputError extends Error {}

/** Every file under `paths` whose name ends with one of `extensions` (any file given directly is taken). */
export async function expandInputs(paths: string[], extensions: string[]): Promise<InputFile[]> {
  const files: InputFile[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (!info) throw new InputError(`No such file or folder: ${path}`);
    if (info.isDirectory()) {
      for (const found of await walk(path)) {
        if (!extensions.some((ext) => found.toLowerCase().endsWith(ext))) continue;
        const s = await stat(found);
        files.push({ path: found, relative: relative(path, found), size: s.size, mtime: s.mtime });
      }
    } else files.push({ path, relative: basename(path), size: info.size, mtime: info.mtime });
  }
  return files;
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const out: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** The files on disk, read through Node's fs; every byte read is counted (the progress line). */
export function nodeFileReader(counter: ByteCounter): ImportFileReader {
  const bytes = async (file: ImportFile) => {
    const data = new Uint8Array(await readFile(file.path));
    counter.read += data.length;
    return data;
  };
  return {
    bytes,
    chunks: (file) => readChunks(file, counter),
    randomAccess: (file) => openRandomAccess(file, counter),
  };
}

/** The file in chunks, without holding it whole. */
async function* readChunks(file: ImportFile, counter: ByteCounter): AsyncIterable<Uint8Array> {
  for await (const chunk of createReadStream(file.path, { highWaterMark: 1024 * 1024 })) {
    const bytes = chunk as Buffer;
    counter.read += bytes.length;
    yield new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  }
}

/** The file as a RandomAccess (a .zip is read by ranges, never whole); `close` releases the handle. */
async function openRandomAccess(
  file: ImportFile,
  counter: ByteCounter,
): Promise<RandomAccess & { close(): Promise<void> }> {
  const handle = await open(file.path, "r");
  const { size } = await handle.stat();
  return {
    size,
    async read(offset, length) {
      const buffer = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      counter.read += filled;
      return buffer.subarray(0, filled);
    },
    close: () => handle.close(),
  };
}
