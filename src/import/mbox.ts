/**
 * Splits an mbox byte stream into messages, chunk by chunk, in bounded memory (only the current message is
 * held). A message starts at a separator line, `From <sender> <asctime date>`, at the start of the file or
 * after an empty line; a body line that merely starts with `From ` (an unescaped quote, "From my phone…")
 * does not look like a separator and stays in the body. mboxrd/mboxo quoting (`>From `, `>>From `) loses
 * one `>`; CRLF files work the same as LF ones. Pure: bytes in, messages out.
 */

export interface MboxMessage {
  /** 1-based message number in the file. */
  index: number;
  /** Byte offset of the separator line. */
  offset: number;
  /** The separator line's date as ISO 8601, when it parses: the fallback for a message without Date. */
  separatorDate?: string;
  /** The message bytes (headers and body), unquoted, without the separator line. */
  raw: Uint8Array;
}

export type MboxPiece =
  | { type: "message"; message: MboxMessage }
  | { type: "oversized"; index: number; offset: number; bytes: number }
  /** Non-blank bytes before the first separator line: the file does not start like an mbox. */
  | { type: "stray"; bytes: number };

/** Messages bigger than this are reported and skipped instead of being held in memory. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const LF = 0x0a;
const FROM_ = [0x46, 0x72, 0x6f, 0x6d, 0x20]; // "From "
const SEPARATOR = /^From \S+\s+(.*\d{1,2}:\d{2}(?::\d{2})?.*)$/;
const latin1 = new TextDecoder("latin1");

export class MboxSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private pending: Uint8Array = new Uint8Array(0);
  private previousBlank = true;
  private current: { index: number; offset: number; separatorDate?: string } | null = null;
  private count = 0;
  private consumed = 0;
  private readonly maxMessageBytes: number;

  constructor(options: { maxMessageBytes?: number } = {}) {
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  /** Feeds the next chunk; returns the messages it completed. */
  push(chunk: Uint8Array): MboxPiece[] {
    const data = this.pending.length > 0 ? concat([this.pending, chunk]) : chunk;
    const base = this.consumed - this.pending.length;
    const out: MboxPiece[] = [];
    let segmentStart = 0;
    let lineStart = 0;
    for (;;) {
      const nl = data.indexOf(LF, lineStart);
      if (nl === -1) break;
      if (this.previousBlank && startsWithFrom(data, lineStart)) {
        const line = latin1.decode(data.subarray(lineStart, nl)).replace(/\r$/, "");
        const match = SEPARATOR.exec(line);
        if (match) {
          this.append(data.subarray(segmentStart, lineStart));
          const done = this.finish();
          if (done) out.push(done);
          this.current = {
            index: ++this.count,
            offset: base + lineStart,
            separatorDate: asctimeToIso(match[1]!),
          };
          segmentStart = nl + 1;
        }
      }
      this.previousBlank = nl === lineStart || (nl === lineStart + 1 && data[lineStart] === 0x0d);
      lineStart = nl + 1;
    }
    this.append(data.subarray(segmentStart, lineStart));
    this.pending = data.slice(lineStart);
    this.consumed += chunk.length;
    return out;
  }

  /** Ends the stream; returns the last message. */
  end(): MboxPiece[] {
    this.append(this.pending);
    this.pending = new Uint8Array(0);
    const done = this.finish();
    return done ? [done] : [];
  }

  private append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.size += bytes.length;
    // Past the limit the bytes are counted, not kept.
    if (this.size <= this.maxMessageBytes) this.parts.push(bytes);
    else this.parts = [];
  }

  private finish(): MboxPiece | null {
    const current = this.current;
    const size = this.size;
    const parts = this.parts;
    this.parts = [];
    this.size = 0;
    if (!current) {
      // Bytes before the first separator: only whitespace is tolerated (it is not a message).
      const stray = parts.some((p) => p.some((b) => b !== LF && b !== 0x0d && b !== 0x20 && b !== 0x09));
      return stray ? { type: "stray", bytes: size } : null;
    }
    if (size > this.maxMessageBytes)
      return { type: "oversized", index: current.index, offset: current.offset, bytes: size };
    return { type: "message", message: { ...current, raw: unquote(trimSeparatorBlank(concat(parts))) } };
  }
}

function startsWithFrom(data: Uint8Array, at: number): boolean {
  for (let i = 0; i < FROM_.length; i++) if (data[at + i] !== FROM_[i]) return false;
  return true;
}

/** The empty line that precedes the next separator belongs to the format, not to the message. */
function trimSeparatorBlank(raw: Uint8Array): Uint8Array {
  let end = raw.length;
  if (end > 0 && raw[end - 1] === LF) end--;
  if (end > 0 && raw[end - 1] === 0x0d) end--;
  return raw.subarray(0, end);
}

/** Removes one `>` from lines matching `^>+From ` (mboxrd; also what mboxo writers meant). */
function unquote(raw: Uint8Array): Uint8Array {
  const out: Uint8Array[] = [];
  let segmentStart = 0;
  let lineStart = 0;
  while (lineStart < raw.length) {
    if (raw[lineStart] === 0x3e) {
      let i = lineStart;
      while (raw[i] === 0x3e) i++;
      if (startsWithFrom(raw, i)) {
        out.push(raw.subarray(segmentStart, lineStart));
        segmentStart = lineStart + 1;
      }
    }
    const nl = raw.indexOf(LF, lineStart);
    if (nl === -1) break;
    lineStart = nl + 1;
  }
  if (segmentStart === 0) return raw;
  out.push(raw.subarray(segmentStart));
  return concat(out);
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** `Mon Jan  1 00:00:00 2024` or `Mon Jan 01 00:00:00 +0000 2024` → ISO 8601 (UTC unless a zone is given). */
export function asctimeToIso(text: string): string | undefined {
  const m = /([A-Za-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s+(?:([+-]\d{4})\s+)?(\d{4})/.exec(
    text,
  );
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[1]!.toLowerCase());
  if (month === -1) return undefined;
  const zone = m[6] ?? "+0000";
  const offsetMinutes =
    (zone[0] === "-" ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
  const utc = Date.UTC(Number(m[7]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5] ?? 0));
  const ms = utc - offsetMinutes * 60_000;
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
