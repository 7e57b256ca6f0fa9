/**
 * Registry entries for chat, transcripts, notes, GitHub and ChatGPT: the pure parsers in src/import/
 * (slack.ts, transcript.ts, markdown.ts, github.ts, chatgpt.ts) fed with the files the command reads.
 */
import { chatgptEvent } from "./chatgpt";
import { githubEvent } from "./github";
import { type ImportFile, type ImportFormat, type ReadContext, readText } from "./import-format";
import { type JsonRecord, JsonRecordSplitter } from "./json-records";
import { limitText, oversizedFile } from "./limits";
import { MarkdownFolder } from "./markdown";
import type { ImportEvent } from "./records";
import { type ExportFile, parseSlackExport } from "./slack";
import { parseSrt, parseVtt } from "./transcript";
import { unzipTextFiles } from "./zip";

/** A date in a file name (`2024-03-05`, `20240305`), else the file's modification time. */
function transcriptDate(file: ImportFile, date: string | undefined): string {
  if (date) return date;
  const m = /(\d{4})-?(\d{2})-?(\d{2})/.exec(file.relative);
  return m ? `${m[1]}-${m[2]}-${m[3]}T00:00:00.000Z` : file.mtime.toISOString();
}

/**
 * A Slack export's files (the parser needs them all at once): from a .zip, inflated as a stream within the
 * per-file and per-export limits, or loose files within the same limits. What cannot be read is an error.
 */
async function* slackFiles(
  files: ImportFile[],
  { reader, limits }: ReadContext,
  found: ExportFile[],
): AsyncIterable<ImportEvent> {
  let loose = 0;
  // Shallow files first: the export's lists before its day files (see zip.ts).
  const depth = (file: ImportFile) => file.relative.split(/[\\/]/).length;
  for (const file of [...files].sort((a, b) => depth(a) - depth(b))) {
    if (file.path.toLowerCase().endsWith(".zip")) {
      const archive = await reader.randomAccess(file);
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
    found.push({ path: file.relative, text: await readText(reader, file) });
  }
}

/** A JSON export streamed record by record, each turned into its event. */
async function* jsonEvents(
  file: ImportFile,
  { reader, limits }: ReadContext,
  event: (record: JsonRecord, path: string) => ImportEvent,
): AsyncIterable<ImportEvent> {
  const splitter = new JsonRecordSplitter({
    maxRecordBytes: limits.maxRecordBytes,
    recordLimit: limitText(limits, "maxRecordBytes"),
  });
  for await (const chunk of reader.chunks(file)) {
    for (const record of splitter.push(chunk)) yield event(record, file.path);
  }
  for (const record of splitter.end()) yield event(record, file.path);
}

/** A transcript read whole, within the per-file limit. */
async function* transcript(
  files: ImportFile[],
  { reader, date, limits }: ReadContext,
  parse: typeof parseVtt,
): AsyncIterable<ImportEvent> {
  for (const file of files) {
    const tooBig = oversizedFile(file, limits);
    if (tooBig) yield tooBig;
    else
      yield* parse(
        { path: file.path, text: await readText(reader, file) },
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
    async *read(files, { reader, limits }) {
      // Notes are read one at a time; the links resolve against every path in the folder.
      const folder = new MarkdownFolder(files.map((f) => f.relative));
      for (const file of files) {
        const tooBig = oversizedFile(file, limits);
        if (tooBig) yield tooBig;
        else {
          const text = await readText(reader, file);
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
