/**
 * vCard bytes → cards of properties, chunk by chunk, in time and memory linear in the input. Unfolds folded
 * lines (a line starting with space or tab) and quoted-printable soft breaks (`=` at a line's end) by
 * appending to the property being read, never by re-reading what it holds. Lines may end in CRLF, LF or CR.
 *
 * Bounds: a value keeps at most `maxValueBytes` (the rest is counted: `size` says how long it was); a binary
 * value (PHOTO, LOGO, SOUND, KEY, or any base64 value) keeps only its first bytes, enough for its media type;
 * a card whose kept properties pass `maxCardBytes` is dropped and reported as `oversized`.
 */
import { ByteBuffer } from "./byte-buffer";

export interface VcardProperty {
  name: string;
  params: Record<string, string[]>;
  /** The value's bytes as written (unfolded, still encoded), at most the value limit. */
  raw: Uint8Array;
  /** The value's length in bytes (unfolded, encoded), kept or not. */
  size: number;
}

export type VcardPiece =
  | { type: "card"; index: number; line: number; properties: VcardProperty[] }
  | { type: "oversized"; index: number; line: number; bytes: number }
  | { type: "unterminated"; index: number; line: number };

export const MAX_VALUE_BYTES = 1024 * 1024;
export const MAX_CARD_BYTES = 64 * 1024 * 1024;
/** What a binary value keeps: a `data:image/jpeg;base64,` prefix or a URL fits. */
export const BINARY_PREFIX_BYTES = 2048;
/** The name and parameters of a property (before its colon). */
const MAX_HEAD_BYTES = 4096;
const BINARY_PROPERTIES = new Set(["PHOTO", "LOGO", "SOUND", "KEY"]);

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const COLON = 0x3a;
const QUOTE = 0x22;
const EQUALS = 0x3d;
const latin1 = new TextDecoder("latin1");

export function isBinary(name: string, params: Record<string, string[]>): boolean {
  const encoding = params.ENCODING?.[0]?.toUpperCase();
  return encoding === "B" || encoding === "BASE64" || BINARY_PROPERTIES.has(name);
}

/** One property while its lines come in: the head (name and parameters) until the colon, then the value. */
class PendingProperty {
  private readonly head = new ByteBuffer(MAX_HEAD_BYTES);
  private quoted = false;
  private value: ByteBuffer | null = null;
  private name = "";
  private params: Record<string, string[]> = {};
  /** No colon within MAX_HEAD_BYTES: not a property; the rest of it is only counted. */
  private invalid = false;
  quotedPrintable = false;

  constructor(private readonly maxValueBytes: number) {}

  append(bytes: Uint8Array): void {
    if (this.value) {
      this.value.append(bytes);
      return;
    }
    if (this.invalid) return;
    const room = MAX_HEAD_BYTES - this.head.length;
    const scan = Math.min(bytes.length, room);
    for (let i = 0; i < scan; i++) {
      const b = bytes[i];
      if (b === QUOTE) this.quoted = !this.quoted;
      else if (b === COLON && !this.quoted) {
        this.head.append(bytes.subarray(0, i));
        this.openValue();
        this.value!.append(bytes.subarray(i + 1));
        return;
      }
    }
    if (bytes.length > room) this.invalid = true;
    else this.head.append(bytes);
  }

  /** The line ended: true when it ended in a quoted-printable soft break (whose `=` is then dropped). */
  endLine(): boolean {
    if (!this.value || !this.quotedPrintable || this.value.last !== EQUALS) return false;
    this.value.dropLast();
    return true;
  }

  finish(): VcardProperty | null {
    if (!this.value) return null;
    return { name: this.name, params: this.params, raw: this.value.bytes().slice(), size: this.value.total };
  }

  private openValue(): void {
    const { name, params } = parseHead(latin1.decode(this.head.bytes()));
    this.name = name;
    this.params = params;
    this.quotedPrintable = params.ENCODING?.[0]?.toUpperCase() === "QUOTED-PRINTABLE";
    this.value = new ByteBuffer(isBinary(name, params) ? BINARY_PREFIX_BYTES : this.maxValueBytes);
  }
}

/** `item1.TEL;TYPE=work,voice;PREF=1` → name and parameters (vCard 2.1's bare `WORK`, `QUOTED-PRINTABLE` too). */
function parseHead(head: string): { name: string; params: Record<string, string[]> } {
  const [nameWithGroup, ...rawParams] = splitUnquoted(head, ";");
  const name = nameWithGroup!.split(".").pop()!.trim().toUpperCase();
  const params: Record<string, string[]> = {};
  for (const p of rawParams) {
    const eq = p.indexOf("=");
    // vCard 2.1 allows bare parameters: `TEL;WORK;VOICE:` means TYPE=WORK,VOICE; `;QUOTED-PRINTABLE` an encoding.
    const key =
      eq === -1
        ? /^(QUOTED-PRINTABLE|BASE64|B|8BIT)$/i.test(p)
          ? "ENCODING"
          : "TYPE"
        : p.slice(0, eq).toUpperCase();
    const values = (eq === -1 ? p : p.slice(eq + 1)).split(",").map((v) => v.replace(/^"|"$/g, ""));
    params[key] = [...(params[key] ?? []), ...values];
  }
  return { name, params };
}

function splitUnquoted(text: string, separator: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === separator && !quoted) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

interface OpenCard {
  index: number;
  line: number;
  properties: VcardProperty[];
  kept: number;
  bytes: number;
  oversized: boolean;
}

export class VcardReader {
  private property: PendingProperty | null = null;
  private card: OpenCard | null = null;
  private count = 0;
  private line = 0;
  private propertyLine = 0;
  private atLineStart = true;
  private softBreak = false;
  /** The previous chunk ended in CR: an LF starting this one belongs to that line end. */
  private skipLf = false;
  private readonly maxValueBytes: number;
  private readonly maxCardBytes: number;

  constructor(options: { maxValueBytes?: number; maxCardBytes?: number } = {}) {
    this.maxValueBytes = options.maxValueBytes ?? MAX_VALUE_BYTES;
    this.maxCardBytes = options.maxCardBytes ?? MAX_CARD_BYTES;
  }

  push(chunk: Uint8Array): VcardPiece[] {
    const out: VcardPiece[] = [];
    let pos = 0;
    if (this.skipLf && chunk.length > 0) {
      if (chunk[0] === LF) pos = 1;
      this.skipLf = false;
    }
    // The next CR and LF at or after `pos` (-1: none in this chunk), each searched for once per occurrence.
    let nextCr = -2;
    let nextLf = -2;
    while (pos < chunk.length) {
      if (this.atLineStart && this.startLine(chunk[pos]!, out)) pos++;
      if (nextCr !== -1 && nextCr < pos) nextCr = chunk.indexOf(CR, pos);
      if (nextLf !== -1 && nextLf < pos) nextLf = chunk.indexOf(LF, pos);
      let lineEnd = chunk.length;
      if (nextCr !== -1) lineEnd = nextCr;
      if (nextLf !== -1 && nextLf < lineEnd) lineEnd = nextLf;
      if (lineEnd > pos) this.property!.append(chunk.subarray(pos, lineEnd));
      if (lineEnd === chunk.length) break;
      pos = lineEnd + 1;
      if (chunk[lineEnd] === CR) {
        if (pos === chunk.length) this.skipLf = true;
        else if (chunk[pos] === LF) pos++;
      }
      this.softBreak = this.property!.endLine();
      this.atLineStart = true;
    }
    return out;
  }

  end(): VcardPiece[] {
    const out: VcardPiece[] = [];
    this.commit(out);
    if (this.card) out.push({ type: "unterminated", index: this.card.index, line: this.card.line });
    this.card = null;
    return out;
  }

  /** A new physical line starting with `first`: true when that byte is a fold's space, to be dropped. */
  private startLine(first: number, out: VcardPiece[]): boolean {
    this.line++;
    this.atLineStart = false;
    if (this.property && this.softBreak) {
      this.softBreak = false;
      return false;
    }
    if (this.property && (first === SPACE || first === TAB)) return true;
    this.commit(out);
    this.property = new PendingProperty(this.maxValueBytes);
    this.propertyLine = this.line;
    return false;
  }

  private commit(out: VcardPiece[]): void {
    const prop = this.property?.finish() ?? null;
    this.property = null;
    if (!prop) return;
    const marker = prop.size <= 16 ? latin1.decode(prop.raw).trim().toUpperCase() : "";
    if (prop.name === "BEGIN" && marker === "VCARD") {
      if (this.card) out.push({ type: "unterminated", index: this.card.index, line: this.card.line });
      this.card = {
        index: ++this.count,
        line: this.propertyLine,
        properties: [],
        kept: 0,
        bytes: 0,
        oversized: false,
      };
      return;
    }
    const card = this.card;
    if (!card) return;
    if (prop.name === "END" && marker === "VCARD") {
      out.push(
        card.oversized
          ? { type: "oversized", index: card.index, line: card.line, bytes: card.bytes }
          : { type: "card", index: card.index, line: card.line, properties: card.properties },
      );
      this.card = null;
      return;
    }
    card.bytes += prop.size;
    if (card.oversized) return;
    card.kept += prop.raw.length + prop.name.length;
    if (card.kept > this.maxCardBytes) {
      card.oversized = true;
      card.properties = [];
    } else card.properties.push(prop);
  }
}
