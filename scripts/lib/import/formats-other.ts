/**
 * Registry entries for chat, transcripts, notes, GitHub and ChatGPT: the pure parsers in src/import/
 * (slack.ts, transcript.ts, markdown.ts, github.ts, chatgpt.ts) fed with the files the command reads.
 */
import { chatgptEvent } from "../../../src/import/chatgpt";
import { githubEvent } from "../../../src/import/github";
import { type JsonRecord, JsonRecordSplitter } from "../../../src/import/json-records";
import { MarkdownFolder } from "../../../src/import/markdown";
import type { ImportEvent } from "../../../src/import/records";
import { type ExportFile, parseSlackExport } from "../../../src/import/slack";
import { parseSrt, parseVtt } from "../../../src/import/transcript";
import type { ImportFormat, ReadContext } from "./import-format";
import { type InputFile, openRandomAccess, readChunks, readText } from "./input-files";
import { limitText, oversizedFile } from "./limits";
import { unzipTextFiles } from "./zip";

/** A date in a file name (`2024-03-05`, `20240305`), else the file's modification time. */
function transcriptDate(file: InputFile, date: string | undefined): string {
  if (date) return date;
  const m = /(\d{4})-?(\d{2})-?(\d{2})/.exec(file.relative);
  return m ? `${m[1]}-${m[2]}-${m[3]}T00:00:00.000Z` : file.mtime.toISOString();
}

/**
 * A Slack export's files (the parser needs them all at once): from a .zip, inflated as a stream within the
 * per-file and per-export limits, or loose files within the same limits. What cannot be read is an error.
 */
async function* slackFiles(
  files: InputFile[],
  { counter, limits }: ReadContext,
  found: ExportFile[],
): AsyncIterable<ImportEvent> {
  let loose = 0;
  // Shallow files first: the export's lists before its day files (see zip.ts).
  const depth = (file: InputFile) => file.relative.split(/[\\/]/).length;
  for (const file of [...files].sort((a, b) => depth(a) - depth(b))) {
    if (file.path.toLowerCase().endsWith(".zip")) {
      const archive = await openRandomAccess(file, counter);
      try {
        const entries = unzipTextFiles(archive, (name) => name.endsWith(".json"), {
          maxEntryBytes: limits.maxFileBytes,
          entryLimit: limitText(limits, "maxFileBytes"),
          maxTotalBytes: limits.maxExportBytes,
          totalLimit: limitText(limits, "maxExportBytes"),
        });
        for await (const entry of entries) {
          if (entry.type === "file") found.push({ path: entry.path, text: entry.text });
          else yield { type: "error", message: entry.message, at: { file: file.path, position: entry.path } };
        }
      } finally {
        await archive.close();
      }
      continue;
    }
    const tooBig = oversizedFile(file, limits);
    if (tooBig) {
      yield tooBig;
      continue;
    }
    loose += file.size;
    if (loose > limits.maxExportBytes) {
      const message = `the export's files come to more than ${limitText(limits, "maxExportBytes")}: this file and the ones after it were not read`;
      yield { type: "error", message, at: { file: file.path, position: "file" } };
      return;
    }
    found.push({ path: file.relative, text: await readText(file, counter) });
  }
}

/** A JSON export streamed record by record, each turned into its event. */
async function* jsonEvents(
  file: InputFile,
  { counter, limits }: ReadContext,
  event: (record: JsonRecord, path: string) => ImportEvent,
): AsyncIterable<ImportEvent> {
  const splitter = new JsonRecordSplitter({
    maxRecordBytes: limits.maxRecordBytes,
    recordLimit: limitText(limits, "maxRecordBytes"),
  });
  for await (const chunk of readChunks(file, counter)) {
    for (const record of splitter.push(chunk)) yield event(record, file.path);
  }
  for (const record of splitter.end()) yield event(record, file.path);
}

/** A transcript read whole, within the per-file limit. */
async function* transcript(
  files: InputFile[],
  { counter, date, limits }: ReadContext,
  parse: typeof parseVtt,
): AsyncIterable<ImportEvent> {
  for (const file of files) {
    const tooBig = oversizedFile(file, limits);
    if (tooBig) yield tooBig;
    else
      yield* parse(
        { path: file.path, text: await readText(file, counter) },
        { date: transcriptDate(file, date) },
      );
  }
}

export const OTHER_FORMATS: Record<string, ImportFormat> = {
  slack: {
    defaultSource: "slack",
    extensions: [".json"],
    async *read(files, context) {
      const found: ExportFile[] = [];
      yield* slackFiles(files, context, found);
      if (found.length > 0) yield* parseSlackExport(found.sort((a, b) => a.path.localeCompare(b.path)));
    },
  },
  vtt: {
    defaultSource: "vtt",
    extensions: [".vtt"],
    read: (files, context) => transcript(files, context, parseVtt),
  },
  srt: {
    defaultSource: "srt",
    extensions: [".srt"],
    read: (files, context) => transcript(files, context, parseSrt),
  },
  markdown: {
    defaultSource: "markdown",
    extensions: [".md", ".markdown"],
    async *read(files, { counter, limits }) {
      // Notes are read one at a time; the links resolve against every path in the folder.
      const folder = new MarkdownFolder(files.map((f) => f.relative));
      for (const file of files) {
        const tooBig = oversizedFile(file, limits);
        if (tooBig) yield tooBig;
        else {
          const text = await readText(file, counter);
          yield folder.event({ path: file.relative, text, fileTime: file.mtime.toISOString() });
        }
      }
    },
  },
  github: {
    defaultSource: "github",
    extensions: [".json", ".ndjson", ".jsonl"],
    async *read(files, context) {
      for (const file of files) yield* jsonEvents(file, context, githubEvent);
    },
  },
  chatgpt: {
    defaultSource: "chatgpt",
    extensions: ["conversations.json"],
    async *read(files, context) {
      for (const file of files) yield* jsonEvents(file, context, chatgptEvent);
    },
  },
};
