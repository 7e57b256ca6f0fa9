/**
 * The format registry: a format's name → its default `source`, the files it takes from a folder, and a
 * reader that turns the input files into ImportEvents. The pure parsers live in src/import; this file adds
 * the file reading and streaming around them.
 */
import { parseEmail } from "../../../src/import/email";
import { parseIcs } from "../../../src/import/ics";
import { MboxSplitter } from "../../../src/import/mbox";
import type { ImportEvent } from "../../../src/import/records";
import { parseVcf } from "../../../src/import/vcf";
import { OTHER_FORMATS } from "./formats-other";
import type { ImportFormat } from "./import-format";
import { type InputFile, readBytes, readChunks, readText } from "./input-files";

const mbox: ImportFormat = {
  defaultSource: "mbox",
  extensions: [".mbox", ".mbx", ".mbs"],
  async *read(files, { counter }) {
    for (const file of files) {
      const splitter = new MboxSplitter();
      let messages = 0;
      for await (const chunk of readChunks(file, counter)) {
        for (const piece of splitter.push(chunk)) {
          messages++;
          yield await mboxEvent(file, piece);
        }
      }
      for (const piece of splitter.end()) {
        messages++;
        yield await mboxEvent(file, piece);
      }
      if (messages === 0)
        yield { type: "skipped", reason: "empty mbox file", at: { file: file.path, position: "file" } };
    }
  },
};

async function mboxEvent(
  file: InputFile,
  piece: ReturnType<MboxSplitter["push"]>[number],
): Promise<ImportEvent> {
  if (piece.type === "stray") {
    return {
      type: "error",
      message: `${piece.bytes} bytes before the first "From " separator line: not an mbox file?`,
      at: { file: file.path, position: "start" },
    };
  }
  if (piece.type === "oversized") {
    return {
      type: "error",
      message: `message of ${piece.bytes} bytes is over the size limit`,
      at: { file: file.path, position: `message ${piece.index} (byte ${piece.offset})` },
    };
  }
  const { message } = piece;
  const at = { file: file.path, position: `message ${message.index} (byte ${message.offset})` };
  return parseEmail(message.raw, at, message.separatorDate ? { fallbackDate: message.separatorDate } : {});
}

const eml: ImportFormat = {
  defaultSource: "eml",
  extensions: [".eml"],
  async *read(files, { counter }) {
    for (const file of files) {
      yield await parseEmail(
        await readBytes(file, counter),
        { file: file.path, position: "message" },
        { fallbackDate: file.mtime.toISOString() },
      );
    }
  },
};

const ics: ImportFormat = {
  defaultSource: "ics",
  extensions: [".ics", ".ical", ".ifb"],
  async *read(files, { counter }) {
    for (const file of files) yield* parseIcs({ path: file.path, text: await readText(file, counter) });
  },
};

const vcf: ImportFormat = {
  defaultSource: "vcf",
  extensions: [".vcf", ".vcard"],
  async *read(files, { counter }) {
    for (const file of files) {
      yield* parseVcf(
        { path: file.path, bytes: await readBytes(file, counter) },
        { fallbackDate: file.mtime.toISOString() },
      );
    }
  },
};

/** Every format the command reads: mail, calendars and contacts here; chat, transcripts, notes, GitHub and ChatGPT in formats-other.ts. */
export const FORMATS: Record<string, ImportFormat> = { mbox, eml, ics, vcf, ...OTHER_FORMATS };
