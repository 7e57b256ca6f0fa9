/** What a format of the import command is: its default `source`, the files it takes, and its reader. */
import type { ImportEvent } from "../../../src/import/records";
import type { ByteCounter, InputFile } from "./input-files";
import type { ImportLimits } from "./limits";

export interface ReadContext {
  counter: ByteCounter;
  limits: ImportLimits;
  /** --date: the occurredAt of formats without one of their own (call transcripts). */
  date?: string;
}

export interface ImportFormat {
  defaultSource: string;
  /** File name endings taken from a folder. */
  extensions: string[];
  read(files: InputFile[], context: ReadContext): AsyncIterable<ImportEvent>;
}
