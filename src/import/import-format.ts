/**
 * What a format of the importer is: its default `source`, the files it takes, and its reader. The readers
 * reach the bytes through an ImportFileReader, so the same readers run over files on disk (the CLI,
 * scripts/lib/import/input-files.ts) and over an upload held by the service (POST /imports).
 */
import type { ImportLimits } from "./limits";
import type { ImportEvent } from "./records";
import type { RandomAccess } from "./zip-directory";

/** One input file: where it came from, and what is known of it before it is read. */
export interface ImportFile {
  /** The path as the user can find it (or the upload's name). */
  path: string;
  /** Relative to the folder it was found in (the file name for a file given directly). */
  relative: string;
  size: number;
  mtime: Date;
}

/** How a reader gets a file's bytes: whole, in chunks (never held whole), or by ranges (a .zip). */
export interface ImportFileReader {
  bytes(file: ImportFile): Promise<Uint8Array>;
  chunks(file: ImportFile): AsyncIterable<Uint8Array>;
  randomAccess(file: ImportFile): Promise<RandomAccess & { close(): Promise<void> }>;
}

export interface ReadContext {
  reader: ImportFileReader;
  limits: ImportLimits;
  /** --date: the occurredAt of formats without one of their own (call transcripts). */
  date?: string;
}

export interface ImportFormat {
  defaultSource: string;
  /** File name endings taken from a folder. */
  extensions: string[];
  read(files: ImportFile[], context: ReadContext): AsyncIterable<ImportEvent>;
}

/** A file's UTF-8 text (a byte-order mark removed). */
export async function readText(reader: ImportFileReader, file: ImportFile): Promise<string> {
  return new TextDecoder("utf-8").decode(await reader.bytes(file));
}
