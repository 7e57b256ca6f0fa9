/**
 * The format registry: a format's name → its default `source`, the files it takes from a folder, and a
 * reader that turns the input files into ImportEvents. The pure parsers live in src/import; this file adds
 * the file reading and streaming around them.
 */
import { parseEmail } from "./email";
import { OTHER_FORMATS } from "./formats-other";
import { parseIcs } from "./ics";
import { type ImportFile, type ImportFormat, readText } from "./import-format";
import { type ImportLimits, limitText, oversizedFile } from "./limits";
import { MboxSplitter } from "./mbox";
import type { ImportEvent } from "./records";
import { VcfParser } from "./vcf";

const mbox: ImportFormat = {
  defaultSource: "mbox",
  extensions: [".mbox", ".mbx", ".mbs"],
  async *read(files, { reader, limits }) {
    for (const file of files) {
      const splitter = new MboxSplitter({ maxMessageBytes: limits.maxRecordBytes });
      let messages = 0;
      for await (const chunk of reader.chunks(file)) {
        for (const piece of splitter.push(chunk)) {
          messages++;
          yield await mboxEvent(file, piece, limits);
        }
      }
      for (const piece of splitter.end()) {
        messages++;
        yield await mboxEvent(file, piece, limits);
      }
      if (messages === 0)
        yield { type: "skipped", reason: "empty mbox file", at: { file: file.path, position: "file" } };
    }
  },
};

async function mboxEvent(
  file: ImportFile,
  piece: ReturnType<MboxSplitter["push"]>[number],
  limits: ImportLimits,
): Promise<ImportEvent> {
  if (piece.type === "stray") {
    return {
      type: "error",
      message: `${piece.bytes} bytes before the first "From " separator line: not an mbox file?`,
      at: { file: file.path, position: "start" },
    };
  }
  if (piece.type === "oversized") {
    // Skipped, not failed: the rest of the mbox streams on; the reason names the limit to raise.
    return {
      type: "skipped",
      reason: `message over ${limitText(limits, "maxRecordBytes")}`,
      at: {
        file: file.path,
        position: `message ${piece.index} (byte ${piece.offset}, ${piece.bytes} bytes)`,
      },
    };
  }
  const { message } = piece;
  const at = { file: file.path, position: `message ${message.index} (byte ${message.offset})` };
  return parseEmail(message.raw, at, message.separatorDate ? { fallbackDate: message.separatorDate } : {});
}

const eml: ImportFormat = {
  defaultSource: "eml",
  extensions: [".eml"],
  async *read(files, { reader, limits }) {
    for (const file of files) {
      const at = { file: file.path, position: "message" };
      if (file.size > limits.maxRecordBytes) {
        yield { type: "skipped", reason: `message over ${limitText(limits, "maxRecordBytes")}`, at };
        continue;
      }
      yield await parseEmail(await reader.bytes(file), at, { fallbackDate: file.mtime.toISOString() });
    }
  },
};

const ics: ImportFormat = {
  defaultSource: "ics",
  extensions: [".ics", ".ical", ".ifb"],
  async *read(files, { reader, limits }) {
    for (const file of files) {
      const tooBig = oversizedFile(file, limits);
      if (tooBig) yield tooBig;
      else yield* parseIcs({ path: file.path, text: await readText(reader, file) });
    }
  },
};

const vcf: ImportFormat = {
  defaultSource: "vcf",
  extensions: [".vcf", ".vcard"],
  async *read(files, { reader, limits }) {
    for (const file of files) {
      const parser = new VcfParser(file.path, {
        fallbackDate: file.mtime.toISOString(),
        maxValueBytes: limits.maxValueBytes,
        maxCardBytes: limits.maxRecordBytes,
        cardLimit: limitText(limits, "maxRecordBytes"),
      });
      for await (const chunk of reader.chunks(file)) yield* parser.push(chunk);
      yield* parser.end();
    }
  },
};

/** Every format the command reads: mail, calendars and contacts here; chat, transcripts, notes, GitHub and ChatGPT in formats-other.ts. */
export const FORMATS: Record<string, ImportFormat> = { mbox, eml, ics, vcf, ...OTHER_FORMATS };
