/**
 * Hostile import inputs for `npm run bench:import -- --hostile`, written to a folder under /tmp (never into
 * the repo) and streamed as they are written, so making a 200 MB line or a 400 MB zip entry holds neither:
 * - a Slack export .zip (5 MB) whose 12 `bomb` day files inflate to 400 MB each (4.8 GB in all; one of them
 *   declares 1 KB), beside an ordinary channel whose day files declare 400 MB each and hold two messages;
 * - an mbox with one message holding a single 200 MB line, between ordinary messages;
 * - vCards with a 50 MB folded NOTE, a vCard 2.1 with a 50 MB quoted-printable NOTE (soft line breaks every
 *   76 characters, as Android and Outlook write them), and one with a 100 MB base64 PHOTO.
 * Each file also holds ordinary records, so a run shows that the rest of the file still imports.
 */
import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { crc32, createDeflateRaw } from "node:zlib";

const MB = 1024 * 1024;

async function write(out: WriteStream, data: string | Uint8Array): Promise<void> {
  if (!out.write(data)) await once(out, "drain");
}

async function close(out: WriteStream): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

/** `count` pieces of `unit` repeated, each written as it is made. */
async function repeat(out: WriteStream, unit: string, count: number, separator = ""): Promise<void> {
  const block = Array.from({ length: Math.min(count, 4096) }, () => unit).join(separator);
  let left = count;
  while (left > 0) {
    const n = Math.min(left, 4096);
    await write(out, n === 4096 ? block : Array.from({ length: n }, () => unit).join(separator));
    left -= n;
    if (left > 0) await write(out, separator);
  }
}

const card = (name: string, extra = "") =>
  `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:${name}\r\nEMAIL:${name.toLowerCase().replace(/\W+/g, ".")}@example.com\r\n${extra}END:VCARD\r\n`;

/** Three ordinary cards, the hostile one, two more. */
async function vcardFile(path: string, hostile: (out: WriteStream) => Promise<void>): Promise<void> {
  const out = createWriteStream(path);
  for (const name of ["Ada Lovelace", "Ben Brown", "Chloe Chen"]) await write(out, card(name));
  await hostile(out);
  for (const name of ["Dev Dutta", "Eli Evans"]) await write(out, card(name));
  await close(out);
}

export async function foldedNoteVcard(path: string, noteMb = 50): Promise<void> {
  await vcardFile(path, async (out) => {
    await write(out, "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Folded Note\r\nNOTE:");
    await repeat(out, "x".repeat(74), Math.ceil((noteMb * MB) / 74), "\r\n ");
    await write(out, "\r\nEND:VCARD\r\n");
  });
}

export async function quotedPrintableNoteVcard(path: string, noteMb = 50): Promise<void> {
  await vcardFile(path, async (out) => {
    await write(out, "BEGIN:VCARD\r\nVERSION:2.1\r\nN:Printable;Quoted\r\nFN:Quoted Printable\r\n");
    await write(out, "NOTE;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:");
    // 25 escaped bytes (=C3=A9 is "é") and a soft break per physical line of 76 characters.
    await repeat(out, "=C3=A9".repeat(12).concat("=41"), Math.ceil((noteMb * MB) / 76), "=\r\n");
    await write(out, "\r\nEND:VCARD\r\n");
  });
}

export async function base64PhotoVcard(path: string, photoMb = 100): Promise<void> {
  await vcardFile(path, async (out) => {
    await write(out, "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Big Photo\r\nPHOTO:data:image/jpeg;base64,");
    await repeat(out, "/9j/4AAQSkZJRgABAQ".repeat(4), Math.ceil((photoMb * MB) / 72), "\r\n ");
    await write(out, "\r\nEND:VCARD\r\n");
  });
}

/** Ordinary messages, one whose body is a single `lineMb` MB line, and ordinary messages after it. */
export async function longLineMbox(path: string, lineMb = 200): Promise<void> {
  const out = createWriteStream(path);
  const message = (i: number, body: string) =>
    `From a@example.com Mon Jan  1 00:00:00 2024\nFrom: Ada <a@example.com>\nTo: Ben <b@example.com>\nSubject: message ${i}\nDate: Mon, 1 Jan 2024 00:00:${String(i).padStart(2, "0")} +0000\nMessage-ID: <m${i}@hostile.example>\n\n${body}\n\n`;
  for (let i = 1; i <= 3; i++) await write(out, message(i, `ordinary message ${i}`));
  await write(out, message(4, "").replace(/\n\n$/, ""));
  await repeat(out, "y".repeat(1024), lineMb * 1024);
  await write(out, "\n\n");
  for (let i = 5; i <= 7; i++) await write(out, message(i, `ordinary message ${i}`));
  await close(out);
}

interface ZipEntrySpec {
  name: string;
  /** The content, as pieces generated on demand (so a 400 MB entry is never held). */
  pieces: () => Iterable<string>;
  /** The uncompressed size written in the headers; by default the true one. */
  declaredSize?: number;
}

/** Deflates an entry's pieces as they come; returns the compressed bytes (small for repetitive data). */
async function deflateEntry(spec: ZipEntrySpec): Promise<{ data: Buffer; size: number; crc: number }> {
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => chunks.push(chunk));
  let size = 0;
  let crc = 0;
  for (const piece of spec.pieces()) {
    const bytes = Buffer.from(piece);
    size += bytes.length;
    crc = crc32(bytes, crc);
    if (!deflate.write(bytes)) await once(deflate, "drain");
  }
  deflate.end();
  await once(deflate, "end");
  return { data: Buffer.concat(chunks), size, crc };
}

/** A zip archive written entry by entry (deflate, no data descriptors, no ZIP64: every size fits 32 bits). */
async function writeZip(path: string, entries: ZipEntrySpec[]): Promise<void> {
  const out = createWriteStream(path);
  const central: Buffer[] = [];
  let offset = 0;
  for (const spec of entries) {
    const { data, size, crc } = await deflateEntry(spec);
    const name = Buffer.from(spec.name);
    const declared = spec.declaredSize ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x800, 8);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(declared, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    await write(out, local);
    await write(out, name);
    await write(out, data);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  await write(out, directory);
  await write(out, end);
  await close(out);
}

const message = (ts: number, text: string) => ({ type: "message", user: "U1", text, ts: `${ts}.000100` });

/**
 * A Slack export: users, channels and a `general` channel of ordinary day files; `bomb` day files that
 * declare and inflate to `entryMb` MB each; ordinary `general` day files that declare 400 MB but hold a few
 * messages; and one that declares 1 KB and inflates to `entryMb` MB.
 */
export async function slackZipBomb(path: string, options: { bombs?: number; entryMb?: number } = {}) {
  const bombs = options.bombs ?? 11;
  const entryMb = options.entryMb ?? 400;
  const huge = (day: number) => () =>
    (function* () {
      yield `[{"type":"message","user":"U1","ts":"${1704067200 + day * 86400}.000100","text":"`;
      const block = "A".repeat(MB);
      for (let i = 0; i < entryMb; i++) yield block;
      yield '"}]';
    })();
  const ordinary = (day: number) => () => [
    JSON.stringify([
      message(1704067200 + day * 86400, `ordinary message on day ${day}`),
      message(1704067260 + day * 86400, `another one on day ${day}`),
    ]),
  ];
  const date = (day: number) => new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10);
  const entries: ZipEntrySpec[] = [
    { name: "users.json", pieces: () => [JSON.stringify([{ id: "U1", name: "ada", real_name: "Ada" }])] },
    {
      name: "channels.json",
      pieces: () => [
        JSON.stringify([
          { id: "C1", name: "general" },
          { id: "C2", name: "bomb" },
        ]),
      ],
    },
  ];
  for (let day = 0; day < bombs; day++) {
    entries.push({ name: `general/${date(day)}.json`, pieces: ordinary(day), declaredSize: 400 * MB });
    entries.push({ name: `bomb/${date(day)}.json`, pieces: huge(day) });
  }
  entries.push({ name: `bomb/${date(bombs)}.json`, pieces: huge(bombs), declaredSize: 1024 });
  entries.push({ name: `general/${date(bombs)}.json`, pieces: ordinary(bombs) });
  await writeZip(path, entries);
  return { ordinaryMessages: (bombs + 1) * 2, bombEntries: bombs + 1 };
}
