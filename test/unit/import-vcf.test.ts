import { describe, expect, it } from "vitest";
import type { ImportEvent } from "../../src/import/records";
import { parseVcf, type VcfOptions, VcfParser } from "../../src/import/vcf";
import { collect } from "../support/import-events";
import { fixtures, latin1Bytes } from "../support/import-fixtures";
import { chunks, elapsedMs } from "../support/import-hostile";

const MB = 1024 * 1024;
const FALLBACK = "2024-01-01T00:00:00.000Z";
const encode = (text: string) => new TextEncoder().encode(text);
const card = (name: string, extra = "") =>
  `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:${name}\r\n${extra}END:VCARD\r\n`;

function parse(text: string | Uint8Array, options: Partial<VcfOptions> = {}) {
  const bytes = typeof text === "string" ? encode(text) : text;
  return collect(parseVcf({ path: "cards.vcf", bytes }, { fallbackDate: FALLBACK, ...options }));
}

/** The same file fed to the streaming parser in pieces of `size` bytes. */
function parseInChunks(bytes: Uint8Array, size: number): ImportEvent[] {
  const parser = new VcfParser("cards.vcf", { fallbackDate: FALLBACK });
  return [...chunks(bytes, size).flatMap((c) => parser.push(c)), ...parser.end()];
}

/** A vCard 2.1 quoted-printable NOTE of `lines` physical lines, each 25 escaped bytes and a soft break. */
function quotedPrintableNote(lines: number): string {
  const line = "=C3=A9".repeat(12).concat("=41");
  return `NOTE;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:${Array.from({ length: lines }, () => line).join("=\r\n")}\r\n`;
}

describe("vCard values of any size, read in linear time and bounded memory", () => {
  it("unfolds a 3 MB quoted-printable NOTE with a soft break every 76 characters in well under a second", () => {
    const lines = Math.ceil((3 * MB) / 76);
    const text = `BEGIN:VCARD\r\nVERSION:2.1\r\nFN:Android Export\r\n${quotedPrintableNote(lines)}END:VCARD\r\n`;
    let result: ReturnType<typeof parse> | undefined;
    // Before: every physical line re-split the growing value, so 2 MB took 21 s and 50 MB never ended.
    const ms = elapsedMs(() => {
      result = parse(text, { maxValueBytes: 8 * MB });
    });
    expect(ms).toBeLessThan(3000);
    expect(result!.items[0]!.body.trim()).toBe(`${"é".repeat(12)}A`.repeat(lines));
  });

  it("cuts a 6 MB folded NOTE at the value limit, names the cut in metadata, and imports the cards around it", () => {
    const folded = `NOTE:${Array.from({ length: Math.ceil((6 * MB) / 74) }, () => "n".repeat(74)).join("\r\n ")}\r\n`;
    const text = card("Before") + card("Folded Note", folded) + card("After");
    const { items, errors } = parse(text, { maxValueBytes: 1 * MB });
    expect(errors).toEqual([]);
    expect(items.map((i) => i.title)).toEqual(["Before", "Folded Note", "After"]);
    const big = items[1]!;
    expect(big.body.length).toBeLessThanOrEqual(1_000_000);
    expect(big.body).toMatch(/^n+$/);
    expect(big.metadata?.truncatedValues).toEqual([
      { property: "NOTE", bytes: Math.ceil((6 * MB) / 74) * 74 },
    ]);
  });

  it("describes a base64 PHOTO by type and size without decoding or keeping it (vCard 4.0 data URI and 2.1 BASE64)", () => {
    const base64 = Array.from({ length: Math.ceil((4 * MB) / 72) }, () => "QUJD".repeat(18));
    const v4 = card("Data Uri", `PHOTO:data:image/jpeg;base64,${base64.join("\r\n ")}\r\n`);
    const v21 = `BEGIN:VCARD\r\nVERSION:2.1\r\nFN:Old Phone\r\nPHOTO;ENCODING=BASE64;TYPE=JPEG:${base64.join("\r\n ")}\r\n\r\nEND:VCARD\r\n`;
    const { items } = parse(v4 + v21 + card("After"));
    expect(items.map((i) => i.title)).toEqual(["Data Uri", "Old Phone", "After"]);
    const decodedBytes = (base64.length * 72 * 3) / 4;
    expect(items[0]!.metadata?.photo).toEqual({ type: "image/jpeg", bytes: decodedBytes });
    expect(items[1]!.metadata?.photo).toEqual({ type: "jpeg", bytes: decodedBytes });
    for (const item of items) expect(item.body).not.toContain("QUJD");
  });

  it("skips a card whose kept values pass the card limit, with a reason, and goes on", () => {
    const many = Array.from({ length: 40 }, (_, i) => `NOTE:${String(i).repeat(30_000)}\r\n`).join("");
    const { items, skipped } = parse(card("Huge", many) + card("Next"), {
      maxCardBytes: 1 * MB,
      cardLimit: "1 MB (--max-record-mb)",
    });
    expect(items.map((i) => i.title)).toEqual(["Next"]);
    expect(skipped).toEqual([
      {
        type: "skipped",
        reason: "card over 1 MB (--max-record-mb)",
        at: { file: "cards.vcf", position: "card 1 (line 1)" },
      },
    ]);
  });

  it("drops a quoted-printable escape cut in half by the value limit", () => {
    const text = `BEGIN:VCARD\r\nVERSION:2.1\r\nFN:Cut\r\nNOTE;ENCODING=QUOTED-PRINTABLE:${"=41".repeat(11)}\r\nEND:VCARD\r\n`;
    // 32 bytes kept: ten whole escapes and "=4" of the eleventh.
    expect(parse(text, { maxValueBytes: 32 }).items[0]!.body).toBe("AAAAAAAAAA");
  });

  it("gives the same events whatever the chunk size, for CRLF, LF and CR line ends, folds and a byte-order mark", () => {
    for (const eol of ["\r\n", "\n", "\r"]) {
      const text = [
        "BEGIN:VCARD",
        "VERSION:2.1",
        "FN;CHARSET=ISO-8859-1;ENCODING=QUOTED-PRINTABLE:J=F6rg M=",
        "=FCller",
        "NOTE:folded",
        "  across lines",
        "TEL;WORK;VOICE:+49 30 1234",
        "END:VCARD",
        "",
      ].join(eol);
      const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...latin1Bytes(text)]);
      const whole = parseInChunks(bytes, bytes.length);
      expect(collect(whole).items.map((i) => [i.title, i.body])).toEqual([
        ["Jörg Müller", "Phone (work): +49 30 1234\n\nfolded across lines"],
      ]);
      for (const size of [1, 2, 3, 7, 64])
        expect(parseInChunks(bytes, size), `${JSON.stringify(eol)} / ${size}`).toEqual(whole);
    }
  });

  it("reads every fixture the same streamed in 5-byte pieces as whole", () => {
    for (const [name, text] of Object.entries(fixtures.vcf)) {
      const bytes = encode(text);
      expect(parseInChunks(bytes, 5), name).toEqual(parseInChunks(bytes, bytes.length));
    }
  });

  it("keeps titles, ids and participants within the API's limits", () => {
    const emails = Array.from({ length: 700 }, (_, i) => `EMAIL:p${i}@example.com\r\n`).join("");
    const [item] = parse(card(`N\u0000${"a".repeat(2000)}`, emails)).items;
    expect(item!.title).toHaveLength(1000);
    expect(item!.title).not.toContain("\u0000");
    expect(item!.participants).toHaveLength(500);
    expect(item!.externalId.length).toBeLessThanOrEqual(500);
    expect(item!.metadata?.emails).toHaveLength(100);
  });
});
