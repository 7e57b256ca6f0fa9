/** The CLI's file side: expands the given paths (folders recursively) into files, and reads them. */
import { createReadStream } from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import { basename, join, relative } from "node:path";
import type { RandomAccess } from "./zip-directory";

export interface InputFile {
  /** The path as the user can find it. */
  path: string;
  /** Relative to the folder it was found in (the file name for a file given directly). */
  relative: string;
  size: number;
  mtime: Date;
}

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

export async function readBytes(file: InputFile, counter: ByteCounter): Promise<Uint8Array> {
  const bytes = new Uint8Array(await readFile(file.path));
  counter.read += bytes.length;
  return bytes;
}

/** UTF-8 text (a byte-order mark removed). */
export async function readText(file: InputFile, counter: ByteCounter): Promise<string> {
  return new TextDecoder("utf-8").decode(await readBytes(file, counter));
}

/** The file in chunks, without holding it whole. */
export async function* readChunks(file: InputFile, counter: ByteCounter): AsyncIterable<Uint8Array> {
  for await (const chunk of createReadStream(file.path, { highWaterMark: 1024 * 1024 })) {
    const bytes = chunk as Buffer;
    counter.read += bytes.length;
    yield new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  }
}

/** The file as a RandomAccess (a .zip is read by ranges, never whole); `close` releases the handle. */
export async function openRandomAccess(
  file: InputFile,
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
