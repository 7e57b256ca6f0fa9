/**
 * The records of a JSON export, streamed: the elements of a top-level array, of arrays written one after
 * another (`gh api --paginate` prints pages so), or the lines of NDJSON. Bytes in, one record at a time out,
 * each parsed on its own: memory holds one record, not the file, and one bad record is its own error while
 * the others still parse. A record over `maxRecordBytes` is counted, not kept, and skipped with a reason.
 * Linear: every byte is looked at once.
 */
import { ByteBuffer } from "./byte-buffer";
import { megabytes } from "./text";

export type JsonRecord =
  | { type: "value"; value: unknown; position: string }
  | { type: "error"; message: string; position: string }
  | { type: "skipped"; reason: string; position: string };

export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const BOM = [0xef, 0xbb, 0xbf];
const isSpace = (b: number) => b === 0x20 || b === LF || b === CR || b === 0x09;

export class JsonRecordSplitter {
  private mode: "start" | "array" | "lines" | "failed" = "start";
  private readonly maxRecordBytes: number;
  private record: ByteBuffer;
  // Arrays: nesting depth (1 = between the top-level array's elements), strings, and where we are.
  private depth = 0;
  private inString = false;
  private escaped = false;
  private page = 0;
  private index = 0;
  private offset = 0;
  // NDJSON: the current line's number.
  private line = 1;

  /** `recordLimit` names the limit in the skip reason (default: its size). */
  private readonly recordLimit: string;

  constructor(options: { maxRecordBytes?: number; recordLimit?: string } = {}) {
    this.maxRecordBytes = options.maxRecordBytes ?? MAX_RECORD_BYTES;
    this.recordLimit = options.recordLimit ?? megabytes(this.maxRecordBytes);
    this.record = new ByteBuffer(this.maxRecordBytes);
  }

  push(chunk: Uint8Array): JsonRecord[] {
    const out: JsonRecord[] = [];
    const bytes = chunk;
    let pos = 0;
    if (this.mode === "start") {
      // Whitespace, and a byte-order mark however the chunks cut it, before the first value.
      for (; pos < bytes.length; pos++) {
        const b = bytes[pos]!;
        const at = this.offset + pos;
        if (at < BOM.length && b === BOM[at]) continue;
        if (!isSpace(b)) break;
        if (b === LF) this.line++;
      }
      if (pos === bytes.length) {
        this.offset += bytes.length;
        return out;
      }
      this.mode = bytes[pos] === OPEN_ARRAY ? "array" : "lines";
    }
    if (this.mode === "array") this.arrays(bytes, pos, out);
    else if (this.mode === "lines") this.lines(bytes, pos, out);
    this.offset += bytes.length;
    return out;
  }

  end(): JsonRecord[] {
    const out: JsonRecord[] = [];
    if (this.mode === "lines") this.emit(out, `line ${this.line}`);
    else if (this.mode === "array" && (this.depth > 0 || this.inString)) {
      this.record = new ByteBuffer(0);
      out.push({
        type: "error",
        message: "not valid JSON: the file ends inside this record",
        position: this.position(this.index + 1),
      });
    }
    this.mode = "failed";
    return out;
  }

  private position(index: number): string {
    return this.page > 1 ? `page ${this.page} record ${index}` : `record ${index}`;
  }

  private arrays(bytes: Uint8Array, from: number, out: JsonRecord[]): void {
    let start = this.depth > 0 ? from : -1;
    for (let i = from; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.inString = false;
        continue;
      }
      if (this.depth === 0) {
        if (isSpace(b)) continue;
        if (b !== OPEN_ARRAY) {
          out.push({
            type: "error",
            message: `not valid JSON: "${String.fromCharCode(b)}" at byte ${this.offset + i} where an array should start; the rest of the file is not read`,
            position: "file",
          });
          this.mode = "failed";
          return;
        }
        this.depth = 1;
        this.page++;
        this.index = 0;
        start = i + 1;
      } else if (b === QUOTE) this.inString = true;
      else if (b === OPEN_ARRAY || b === OPEN_OBJECT) this.depth++;
      else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
        if (this.depth === 1) {
          this.record.append(bytes.subarray(start, i));
          this.emit(out, this.position(this.index + 1));
          this.depth = 0;
          start = -1;
        } else this.depth--;
      } else if (b === COMMA && this.depth === 1) {
        this.record.append(bytes.subarray(start, i));
        this.emit(out, this.position(this.index + 1));
        start = i + 1;
      }
    }
    if (start >= 0) this.record.append(bytes.subarray(start));
  }

  private lines(bytes: Uint8Array, from: number, out: JsonRecord[]): void {
    let pos = from;
    while (pos < bytes.length) {
      const nl = bytes.indexOf(LF, pos);
      if (nl === -1) {
        this.record.append(bytes.subarray(pos));
        return;
      }
      this.record.append(bytes.subarray(pos, nl));
      this.emit(out, `line ${this.line}`);
      this.line++;
      pos = nl + 1;
    }
  }

  /** The record read so far, parsed (or why not); blank records (`[]`, empty lines) are not records. */
  private emit(out: JsonRecord[], position: string): void {
    const record = this.record;
    this.record = new ByteBuffer(this.maxRecordBytes);
    if (record.overflowed) {
      this.index++;
      out.push({
        type: "skipped",
        reason: `record over ${this.recordLimit}`,
        position,
      });
      return;
    }
    const bytes = record.bytes();
    let blank = true;
    for (const b of bytes) {
      if (!isSpace(b)) {
        blank = false;
        break;
      }
    }
    if (blank) return;
    this.index++;
    try {
      out.push({ type: "value", value: JSON.parse(decoder.decode(bytes)), position });
    } catch (error) {
      out.push({ type: "error", message: `not valid JSON: ${(error as Error).message}`, position });
    }
  }
}

const decoder = new TextDecoder("utf-8");

/** The records of JSON text held whole (tests; small files). */
export function jsonRecordsOfText(
  text: string,
  options: { maxRecordBytes?: number; recordLimit?: string } = {},
): JsonRecord[] {
  const splitter = new JsonRecordSplitter(options);
  return [...splitter.push(new TextEncoder().encode(text)), ...splitter.end()];
}
