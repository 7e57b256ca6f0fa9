/**
 * Splits an mbox byte stream into messages, chunk by chunk, in bounded memory (only the current message is
 * held). A message starts at a separator line, `From <sender> <asctime date>`, at the start of the file or
 * after an empty line; a body line that merely starts with `From ` (an unescaped quote, "From my phone…")
 * does not look like a separator and stays in the body. mboxrd/mboxo quoting (`>From `, `>>From `) loses
 * one `>`; CRLF files work the same as LF ones. Pure: bytes in, messages out.
 *
 * Linear in the input: every byte is looked at once. Only a line that may be a separator (it follows an
 * empty line and starts with `From `) is held back until its end, and only up to MAX_SEPARATOR_BYTES; any
 * other line, however long, goes straight into the current message. A message over the size limit is
 * counted, not kept, and reported as `oversized`.
 */
import { storableIso } from "./email-headers";

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
/** A separator line is short (`From address asctime`); a longer line starting with `From ` is body text. */
export const MAX_SEPARATOR_BYTES = 1024;

const LF = 0x0a;
const CR = 0x0d;
const FROM_ = [0x46, 0x72, 0x6f, 0x6d, 0x20]; // "From "
const SEPARATOR = /^From \S+\s+(.*\d{1,2}:\d{2}(?::\d{2})?.*)$/;
const latin1 = new TextDecoder("latin1");

export class MboxSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  /** Bytes before the first separator that are not whitespace. */
  private strayText = false;
  private current: { index: number; offset: number; separatorDate?: string } | null = null;
  private count = 0;
  /** Bytes of the stream before the current chunk. */
  private consumed = 0;
  private readonly maxMessageBytes: number;

  // The current line: its length so far, its first byte, its offset in the stream.
  private lineLength = 0;
  private lineFirst = -1;
  private lineOffset = 0;
  private previousBlank = true;
  /** The current line, held back while it may still be a separator (it follows an empty line). */
  private holding = true;
  private readonly held = new Uint8Array(MAX_SEPARATOR_BYTES + 2);
  private heldLength = 0;

  constructor(options: { maxMessageBytes?: number } = {}) {
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  /** Feeds the next chunk; returns the messages it completed. */
  push(chunk: Uint8Array): MboxPiece[] {
    const out: MboxPiece[] = [];
    /** Start of the bytes of this chunk that belong to the message and are not yet appended. */
    let run = 0;
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(LF, pos);
      const end = nl === -1 ? chunk.length : nl + 1;
      if (this.lineLength === 0) {
        this.lineFirst = chunk[pos]!;
        this.lineOffset = this.consumed + pos;
      }
      this.lineLength += end - pos;
      if (this.holding) {
        const piece = chunk.subarray(pos, end);
        if (this.heldLength + piece.length <= this.held.length) {
          this.held.set(piece, this.heldLength);
          this.heldLength += piece.length;
          run = end;
          if (!this.mayBeSeparator()) this.release();
        } else {
          // Too long for a separator: what was held, then this piece, are ordinary message bytes.
          this.release();
          run = pos;
        }
      }
      if (nl === -1) break;
      if (this.holding) {
        const line = latin1.decode(this.held.subarray(0, this.heldLength - 1)).replace(/\r$/, "");
        const match = SEPARATOR.exec(line);
        if (match) {
          const done = this.finish();
          if (done) out.push(done);
          this.current = {
            index: ++this.count,
            offset: this.lineOffset,
            separatorDate: asctimeToIso(match[1]!),
          };
          this.heldLength = 0;
          this.holding = false;
        } else this.release();
      }
      this.previousBlank = this.lineLength === 1 || (this.lineLength === 2 && this.lineFirst === CR);
      this.lineLength = 0;
      pos = end;
      if (this.previousBlank) {
        // The next line may be a separator: what came before it is complete message text.
        this.append(chunk.subarray(run, pos));
        run = pos;
        this.holding = true;
      }
    }
    if (!this.holding) this.append(chunk.subarray(run));
    this.consumed += chunk.length;
    return out;
  }

  /** Ends the stream; returns the last message. */
  end(): MboxPiece[] {
    this.release();
    const done = this.finish();
    return done ? [done] : [];
  }

  private mayBeSeparator(): boolean {
    const n = Math.min(this.heldLength, FROM_.length);
    for (let i = 0; i < n; i++) if (this.held[i] !== FROM_[i]) return false;
    return true;
  }

  /** The held line is not a separator: it is message text. */
  private release(): void {
    this.holding = false;
    if (this.heldLength === 0) return;
    this.append(this.held.slice(0, this.heldLength));
    this.heldLength = 0;
  }

  private append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.size += bytes.length;
    if (!this.current) {
      // Before the first separator: only counted (and whether it is more than whitespace).
      if (!this.strayText)
        this.strayText = bytes.some((b) => b !== LF && b !== CR && b !== 0x20 && b !== 0x09);
      return;
    }
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
      const stray = this.strayText;
      this.strayText = false;
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
  if (end > 0 && raw[end - 1] === CR) end--;
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

/**
 * `Mon Jan  1 00:00:00 2024` or `Mon Jan 01 00:00:00 +0000 2024` → ISO 8601 (UTC unless a zone is given);
 * undefined when it does not parse or falls outside the years 1-9999 the service stores.
 */
export function asctimeToIso(text: string): string | undefined {
  const m = /([A-Za-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s+(?:([+-]\d{4})\s+)?(\d{4,6})/.exec(
    text,
  );
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[1]!.toLowerCase());
  if (month === -1) return undefined;
  const zone = m[6] ?? "+0000";
  const offsetMinutes =
    (zone[0] === "-" ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
  const utc = new Date(0);
  utc.setUTCFullYear(Number(m[7]), month, Number(m[2]));
  utc.setUTCHours(Number(m[3]), Number(m[4]), Number(m[5] ?? 0));
  return storableIso(utc.getTime() - offsetMinutes * 60_000);
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
