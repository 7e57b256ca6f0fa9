/**
 * Registry entries for chat, transcripts, notes, GitHub and ChatGPT: the pure parsers in src/import/
 * (slack.ts, transcript.ts, markdown.ts, github.ts, chatgpt.ts) fed with the files the command reads.
 */
import { parseChatgpt } from "../../../src/import/chatgpt";
import { parseGithub } from "../../../src/import/github";
import { parseMarkdownFolder } from "../../../src/import/markdown";
import { parseSlackExport } from "../../../src/import/slack";
import { parseSrt, parseVtt } from "../../../src/import/transcript";
import type { ImportFormat } from "./import-format";
import { type InputFile, readBytes, readText } from "./input-files";
import { unzipTextFiles } from "./zip";

/** A date in a file name (`2024-03-05`, `20240305`), else the file's modification time. */
function transcriptDate(file: InputFile, date: string | undefined): string {
  if (date) return date;
  const m = /(\d{4})-?(\d{2})-?(\d{2})/.exec(file.relative);
  return m ? `${m[1]}-${m[2]}-${m[3]}T00:00:00.000Z` : file.mtime.toISOString();
}

/** The files' text, named by their path inside the folder given, with their modification time (a fallback date). */
async function texts(files: InputFile[], counter: { read: number; total: number }) {
  const out: { path: string; text: string; fileTime: string }[] = [];
  for (const file of files) {
    out.push({
      path: file.relative,
      text: await readText(file, counter),
      fileTime: file.mtime.toISOString(),
    });
  }
  return out;
}

export const OTHER_FORMATS: Record<string, ImportFormat> = {
  slack: {
    defaultSource: "slack",
    extensions: [".json"],
    async *read(files, { counter }) {
      const zips = files.filter((f) => f.path.toLowerCase().endsWith(".zip"));
      const loose = files.filter((f) => !f.path.toLowerCase().endsWith(".zip"));
      for (const zip of zips)
        yield* parseSlackExport(unzipTextFiles(await readBytes(zip, counter), (n) => n.endsWith(".json")));
      if (loose.length > 0) yield* parseSlackExport(await texts(loose, counter));
    },
  },
  vtt: {
    defaultSource: "vtt",
    extensions: [".vtt"],
    async *read(files, { counter, date }) {
      for (const file of files)
        yield* parseVtt(
          { path: file.path, text: await readText(file, counter) },
          { date: transcriptDate(file, date) },
        );
    },
  },
  srt: {
    defaultSource: "srt",
    extensions: [".srt"],
    async *read(files, { counter, date }) {
      for (const file of files)
        yield* parseSrt(
          { path: file.path, text: await readText(file, counter) },
          { date: transcriptDate(file, date) },
        );
    },
  },
  markdown: {
    defaultSource: "markdown",
    extensions: [".md", ".markdown"],
    async *read(files, { counter }) {
      yield* parseMarkdownFolder(await texts(files, counter));
    },
  },
  github: {
    defaultSource: "github",
    extensions: [".json", ".ndjson", ".jsonl"],
    async *read(files, { counter }) {
      for (const file of files) yield* parseGithub({ path: file.path, text: await readText(file, counter) });
    },
  },
  chatgpt: {
    defaultSource: "chatgpt",
    extensions: ["conversations.json"],
    async *read(files, { counter }) {
      for (const file of files) yield* parseChatgpt({ path: file.path, text: await readText(file, counter) });
    },
  },
};
