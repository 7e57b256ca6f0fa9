/**
 * Call transcripts: WebVTT (Zoom, Teams, Meet) and SRT. One `call` item per file, cues merged into speaker turns.
 * Written here rather than on a WebVTT library: node-webvtt, webvtt-parser and media-captions drop cues with
 * unpadded timestamps such as `0:0:0.570`, node-webvtt refuses a header block, @plussub/srt-vtt-parser throws on a
 * byte-order mark, and none of them names speakers (`<v Name>` or `Name:`), which is what a transcript needs.
 */
import { keepValid, MAX_ITEM_PEOPLE, MAX_PERSON_NAME } from "../domain/people/model";
import type { ImportEvent } from "./records";
import { boundedText, storableText } from "./text";
import { baseName, dateInName, isoFromLooseDate, normalizePath, stripBom, unique } from "./text-utils";

export interface TranscriptFile {
  path: string;
  text: string;
}

export interface TranscriptOptions {
  /** The call's date or date-time (--date); wins over a date in the file name. */
  date?: string;
  /** The file's modification time, the last resort. */
  fileTime?: string;
}

interface Cue {
  start: number;
  end: number;
  speaker?: string;
  text: string;
}

const MAX_SPEAKER_CHARS = 200;
const TIME = String.raw`(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?`;
const TIMING = new RegExp(String.raw`^\s*${TIME}\s*-->\s*${TIME}`);

function seconds(h: string | undefined, m: string, s: string, frac: string | undefined): number {
  const ms = frac ? Number(frac.padEnd(3, "0")) : 0;
  return Number(h ?? 0) * 3600 + Number(m) * 60 + Number(s) + ms / 1000;
}

/** "Jane Doe: text" (Zoom) or "MAN 2:" on its own line (broadcast captions); not "Note: this is" prose. */
const SPEAKER_PREFIX =
  /^([\p{Lu}\p{Lt}][\p{L}\p{M}'’.\- ]{0,40}?(?: \d+)?|[\p{L}][\p{L}\p{M}'’.\- ]{0,40}? [\p{Lu}][\p{L}\p{M}'’.-]*)\s*:\s+(.*)$|^([\p{Lu}][\p{Lu}\p{N} '’.-]{0,40}):\s*$/u;

function decode(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&nbsp;/g, " ")
    .replace(/&lrm;|&rlm;/g, "")
    .replace(/&amp;/g, "&");
}

/** The speaker of a cue's text and its plain words. */
function speakerAndText(lines: string[]): { speaker?: string; text: string } {
  const joined = lines.join("\n");
  // No tag pattern may cross a `<`: a cue of `<v <v <v…` or `<<<…` without `>` is read once, not once per `<`.
  const voice = /<v(?:\.[^\s<>]*)?\s+([^<>]+)>/.exec(joined);
  const plain = decode(joined.replace(/<[^<>]*>/g, ""));
  if (voice) {
    const speaker = storableText(voice[1], MAX_SPEAKER_CHARS);
    return { ...(speaker ? { speaker } : {}), text: plain.replace(/\s+/g, " ").trim() };
  }
  const [first = "", ...rest] = plain.split("\n");
  const match = SPEAKER_PREFIX.exec(first.trim());
  if (match && (match[1] ?? match[3])) {
    const speaker = (match[1] ?? match[3])!.trim();
    const words = [match[2] ?? "", ...rest].join(" ");
    return { speaker, text: words.replace(/\s+/g, " ").trim() };
  }
  return { text: plain.replace(/\s+/g, " ").trim() };
}

function* readCues(
  text: string,
  file: string,
): Generator<{ cue: Cue } | { error: string; position: string }> {
  const blocks = stripBom(text)
    .replace(/\r\n?/g, "\n")
    .split(/\n[ \t]*\n/);
  let index = 0;
  for (const block of blocks) {
    const lines = block.split("\n").filter((l, i) => i > 0 || l.trim() !== "");
    if (lines.length === 0) continue;
    const head = lines[0]!.trim();
    if (/^(WEBVTT|NOTE|STYLE|REGION)\b/.test(head) || /^X-TIMESTAMP-MAP/.test(head)) continue;
    const timingAt = lines.findIndex((l) => l.includes("-->"));
    if (timingAt < 0 || timingAt > 1) {
      index += 1;
      yield { error: "a block with no cue timing", position: `block ${index} of ${baseName(file)}` };
      continue;
    }
    index += 1;
    const timing = TIMING.exec(lines[timingAt]!);
    if (!timing) {
      yield { error: `unreadable cue timing "${lines[timingAt]!.trim()}"`, position: `cue ${index}` };
      continue;
    }
    const [, h1, m1, s1, f1, h2, m2, s2, f2] = timing;
    const words = speakerAndText(lines.slice(timingAt + 1));
    if (words.text === "") continue;
    yield { cue: { start: seconds(h1, m1!, s1!, f1), end: seconds(h2, m2!, s2!, f2), ...words } };
  }
}

function clock(total: number): string {
  const s = Math.floor(total);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

interface Turn {
  speaker?: string;
  start: number;
  words: string[];
}

/** Consecutive cues of one speaker become one turn; a cue with no speaker continues the current turn. */
function turnsOf(cues: Cue[]): Turn[] {
  const turns: Turn[] = [];
  for (const cue of cues) {
    const current = turns[turns.length - 1];
    if (current && (cue.speaker === undefined || cue.speaker === current.speaker))
      current.words.push(cue.text);
    else turns.push({ speaker: cue.speaker, start: cue.start, words: [cue.text] });
  }
  return turns;
}

function occurredAt(path: string, opts: TranscriptOptions): string | null {
  if (opts.date) return isoFromLooseDate(opts.date);
  return dateInName(baseName(path)) ?? (opts.fileTime ? isoFromLooseDate(opts.fileTime) : null);
}

function* parseTranscript(
  file: TranscriptFile,
  opts: TranscriptOptions,
  format: "vtt" | "srt",
): Iterable<ImportEvent> {
  const cues: Cue[] = [];
  for (const read of readCues(file.text, file.path)) {
    if ("error" in read)
      yield { type: "error", message: read.error, at: { file: file.path, position: read.position } };
    else cues.push(read.cue);
  }
  const at = { file: file.path, position: "transcript" };
  if (cues.length === 0) {
    yield { type: "error", message: `no ${format.toUpperCase()} cues in the file`, at };
    return;
  }
  const when = occurredAt(file.path, opts);
  if (!when) {
    const message = opts.date
      ? `--date "${opts.date}" is not a date (YYYY-MM-DD or an ISO 8601 date-time)`
      : "no date for the call: give --date, or put the date in the file name";
    yield { type: "error", message, at };
    return;
  }
  const turns = turnsOf(cues);
  const speakers = unique(turns.flatMap((t) => (t.speaker ? [t.speaker] : [])));
  const body = boundedText(
    turns
      .map((t) => `${t.speaker ? `${t.speaker} ` : ""}[${clock(t.start)}]: ${t.words.join(" ")}`)
      .join("\n\n"),
  );
  // A loop, not Math.max(...cues): spreading 100,000+ cues overflows the call stack.
  let duration = 0;
  for (const cue of cues) if (cue.end > duration) duration = cue.end;
  const name = baseName(file.path);
  yield {
    type: "item",
    item: {
      externalId: normalizePath(file.path),
      kind: "call",
      title: storableText(name.replace(/\.(vtt|srt)$/i, "").replace(/\.transcript$/i, ""), 1000) ?? name,
      body: body.text,
      participants: speakers.slice(0, 500),
      // A speaker label means someone only inside this call: sightingsOf scopes it to the item.
      ...(speakers.length > 0
        ? {
            people: speakers.slice(0, MAX_ITEM_PEOPLE).flatMap((speaker) => {
              const label = storableText(speaker, MAX_PERSON_NAME);
              const person = label
                ? keepValid({
                    role: "participant",
                    name: label,
                    handles: [{ kind: "speaker", value: label }],
                  })
                : null;
              return person ? [person] : [];
            }),
          }
        : {}),
      occurredAt: when,
      metadata: {
        format,
        cues: cues.length,
        turns: turns.length,
        durationSeconds: Math.round(duration),
        speakers: speakers.slice(0, 500),
        ...(body.truncated ? { truncated: true } : {}),
      },
    },
    at,
  };
}

export function parseVtt(file: TranscriptFile, opts: TranscriptOptions = {}): Iterable<ImportEvent> {
  return parseTranscript(file, opts, "vtt");
}

export function parseSrt(file: TranscriptFile, opts: TranscriptOptions = {}): Iterable<ImportEvent> {
  return parseTranscript(file, opts, "srt");
}
