/**
 * vCard (2.1, 3.0, 4.0) → one `contact` item per card. Written here rather than taken from ical.js, whose
 * vCard support stops at 3.0/4.0: 2.1 cards from phones use bare parameters (`TEL;WORK;VOICE:`),
 * quoted-printable values with soft line breaks and `CHARSET=`. Input is bytes so any charset decodes;
 * CRLF, LF-only and folded lines all work. Streamed and bounded (vcard-reader.ts): a value over the value
 * limit is cut (metadata.truncatedValues names it), a photo is described (type, size), never decoded.
 */
import { MAX_PARTICIPANTS } from "../domain/item-schema";
import {
  type ItemHandle,
  type ItemPerson,
  keepValid,
  MAX_HANDLE_VALUE,
  MAX_PERSON_ALIASES,
  MAX_PERSON_HANDLES,
  MAX_PERSON_NAME,
  normalisePhone,
} from "../domain/people/model";
import type { ImportEvent, ImportItem, RecordPosition } from "./records";
import { boundedText, megabytes, storableText } from "./text";
import { isBinary, MAX_CARD_BYTES, type VcardPiece, type VcardProperty, VcardReader } from "./vcard-reader";

interface Property {
  name: string;
  params: Record<string, string[]>;
  value: string;
  /** The value was longer than the value limit and is cut: its length in bytes as written. */
  cutFrom?: number;
}

export interface VcfOptions {
  /** occurredAt for a card without REV (the file's time). */
  fallbackDate: string;
  /** A value keeps at most this many bytes (the rest is cut and named in metadata.truncatedValues). */
  maxValueBytes?: number;
  /** A card keeping more than this is skipped with a reason, which names the limit as `cardLimit` (default: its size). */
  maxCardBytes?: number;
  cardLimit?: string;
}

/** Metadata lists stay far below the API's 10,000 values and 256 KB of metadata. */
const MAX_LISTED = 100;

/** A vCard file (the CLI streams it chunk by chunk through VcfParser; this is the whole-bytes form). */
export function* parseVcf(
  file: { path: string; bytes: Uint8Array },
  options: VcfOptions,
): Iterable<ImportEvent> {
  const parser = new VcfParser(file.path, options);
  yield* parser.push(file.bytes);
  yield* parser.end();
}

/** Streams a vCard file: bytes in, one event per card out. */
export class VcfParser {
  private readonly reader: VcardReader;
  private consumed = 0;

  constructor(
    private readonly path: string,
    private readonly options: VcfOptions,
  ) {
    this.reader = new VcardReader(options);
  }

  push(chunk: Uint8Array): ImportEvent[] {
    // A UTF-8 byte-order mark is not part of the first line, however the chunks cut it.
    let skip = 0;
    while (
      skip < chunk.length &&
      this.consumed + skip < BOM.length &&
      chunk[skip] === BOM[this.consumed + skip]
    )
      skip++;
    this.consumed += chunk.length;
    return this.reader.push(chunk.subarray(skip)).map((piece) => this.event(piece));
  }

  end(): ImportEvent[] {
    return this.reader.end().map((piece) => this.event(piece));
  }

  private event(piece: VcardPiece): ImportEvent {
    const at = { file: this.path, position: `card ${piece.index} (line ${piece.line})` };
    if (piece.type === "unterminated") return { type: "error", message: "card without END:VCARD", at };
    if (piece.type === "oversized") {
      const limit = this.options.cardLimit ?? megabytes(this.options.maxCardBytes ?? MAX_CARD_BYTES);
      return { type: "skipped", reason: `card over ${limit}`, at };
    }
    return cardEvent(
      piece.properties.map((p) => decodeProperty(p)),
      piece.properties,
      at,
      this.options.fallbackDate,
    );
  }
}

function decodeProperty(prop: VcardProperty): Property {
  const cut = prop.size > prop.raw.length && !isBinary(prop.name, prop.params);
  return {
    name: prop.name,
    params: prop.params,
    value: decodeValue(prop, cut),
    ...(cut ? { cutFrom: prop.size } : {}),
  };
}

function decodeValue(prop: VcardProperty, cut: boolean): string {
  if (isBinary(prop.name, prop.params)) return latin1.decode(prop.raw);
  const encoding = prop.params.ENCODING?.[0]?.toUpperCase();
  const charset = prop.params.CHARSET?.[0] ?? "utf-8";
  const bytes = encoding === "QUOTED-PRINTABLE" ? quotedPrintable(prop.raw, cut) : prop.raw;
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

const latin1 = new TextDecoder("latin1");
const BOM = [0xef, 0xbb, 0xbf];

function hexValue(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
}

/** `=XX` escapes decoded in one pass; a value cut in the middle of an escape loses that escape. */
function quotedPrintable(raw: Uint8Array, cut: boolean): Uint8Array {
  const out = new Uint8Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b === 0x3d) {
      const high = hexValue(raw[i + 1]);
      const low = hexValue(raw[i + 2]);
      if (high >= 0 && low >= 0) {
        out[n++] = high * 16 + low;
        i += 2;
        continue;
      }
      if (cut && i + 2 >= raw.length) break;
    }
    out[n++] = b;
  }
  return out.subarray(0, n);
}

/** A binary value's media type and size, never its bytes: `data:image/jpeg;base64,…`, TYPE=JPEG, or a URL. */
function binaryInfo(prop: VcardProperty): Record<string, unknown> {
  const head = latin1.decode(prop.raw.subarray(0, 256));
  const data = /^data:([\w.+-]+\/[\w.+-]+)?[^,]*,/i.exec(head);
  if (data) {
    const base64 = /;base64,$/i.test(data[0]);
    const payload = prop.size - data[0].length;
    return {
      ...(data[1] ? { type: data[1].toLowerCase() } : {}),
      bytes: base64 ? Math.floor((payload * 3) / 4) : payload,
    };
  }
  const url = /^https?:\/\/\S+$/i.test(head.trim()) && prop.size <= 2000 ? head.trim() : undefined;
  if (url) return { url };
  const type = prop.params.TYPE?.find((t) => !/^(pref|\d+)$/i.test(t)) ?? prop.params.MEDIATYPE?.[0];
  const encoding = prop.params.ENCODING?.[0]?.toUpperCase();
  return {
    ...(type ? { type: type.toLowerCase() } : {}),
    bytes: encoding === "B" || encoding === "BASE64" ? Math.floor((prop.size * 3) / 4) : prop.size,
  };
}

/** Splits a structured value on unescaped `;` and unescapes `\,`, `\;`, `\n`. */
function components(value: string): string[] {
  return value.split(/(?<!\\);/).map(unescapeText);
}

function unescapeText(value: string): string {
  return value.replace(/\\([nN,;\\])/g, (_, c: string) => (c === "n" || c === "N" ? "\n" : c)).trim();
}

function cardEvent(
  card: Property[],
  raw: VcardProperty[],
  at: RecordPosition,
  fallbackDate: string,
): ImportEvent {
  const first = (name: string) => card.find((p) => p.name === name);
  const all = (name: string) => card.filter((p) => p.name === name && p.value.trim() !== "");
  const n = first("N") ? components(first("N")!.value) : [];
  const fromN = [n[3], n[1], n[2], n[0], n[4]].filter(Boolean).join(" ").trim();
  const emails = all("EMAIL").map((p) => unescapeText(p.value));
  const name = storableText(
    unescapeText(first("FN")?.value ?? "") || fromN || emails[0] || unescapeText(first("ORG")?.value ?? ""),
    1000,
  );
  if (!name) return { type: "skipped", reason: "card without a name or email", at };

  const typed = (p: Property) => {
    const types = (p.params.TYPE ?? [])
      .map((t) => t.toLowerCase())
      .filter((t) => !["internet", "pref", "voice"].includes(t));
    return types.length > 0 ? ` (${types.join(", ")})` : "";
  };
  const lines: string[] = [];
  const org = first("ORG") ? components(first("ORG")!.value).filter(Boolean).join(", ") : "";
  const title = unescapeText(first("TITLE")?.value ?? "");
  if (title || org) lines.push([title, org].filter(Boolean).join(", "));
  for (const p of all("EMAIL")) lines.push(`Email${typed(p)}: ${unescapeText(p.value)}`);
  for (const p of all("TEL")) lines.push(`Phone${typed(p)}: ${unescapeText(p.value).replace(/^tel:/i, "")}`);
  for (const p of all("ADR"))
    lines.push(`Address${typed(p)}: ${components(p.value).filter(Boolean).join(", ")}`);
  for (const p of all("URL")) lines.push(`Web: ${unescapeText(p.value)}`);
  const bday = unescapeText(first("BDAY")?.value ?? "");
  if (bday) lines.push(`Birthday: ${bday}`);
  const note = unescapeText(first("NOTE")?.value ?? "");
  if (note) lines.push(...(lines.length > 0 ? [""] : []), note);

  const uid = unescapeText(first("UID")?.value ?? "");
  const externalId =
    storableText(
      uid ||
        `vcard:${name.toLowerCase()}|${emails
          .map((e) => e.toLowerCase())
          .sort()
          .join(",")}`,
      500,
    ) ?? name;
  const rev = parseRev(first("REV")?.value);
  const short = (text: string) => storableText(text, 1000) ?? "";
  const metadata: Record<string, unknown> = {
    version: short(first("VERSION")?.value ?? "") || "unknown",
  };
  if (emails.length > 0) metadata.emails = emails.slice(0, MAX_LISTED).map(short);
  const phones = all("TEL").map((p) => unescapeText(p.value).replace(/^tel:/i, ""));
  if (phones.length > 0) metadata.phones = phones.slice(0, MAX_LISTED).map(short);
  if (org) metadata.organization = short(org);
  if (title) metadata.jobTitle = short(title);
  if (bday) metadata.birthday = short(bday);
  const photo = raw.find((p) => p.name === "PHOTO");
  if (photo) metadata.photo = binaryInfo(photo);
  const cut = card.filter((p) => p.cutFrom !== undefined).slice(0, MAX_LISTED);
  if (cut.length > 0) metadata.truncatedValues = cut.map((p) => ({ property: p.name, bytes: p.cutFrom }));
  const body = boundedText(lines.join("\n") || name);
  if (body.truncated) metadata.truncated = true;

  const item: ImportItem = {
    externalId,
    kind: "contact",
    title: name,
    body: body.text,
    occurredAt: rev ?? fallbackDate,
    metadata,
  };
  const participants = [...new Set(emails.flatMap((e) => storableText(e, 500) ?? []))];
  if (participants.length > 0) item.participants = participants.slice(0, MAX_PARTICIPANTS);
  const url = all("URL")
    .map((p) => unescapeText(p.value))
    .find((u) => /^https?:\/\//i.test(u) && u.length <= 2000);
  if (url) item.url = url;
  const person = cardPerson(name, emails, phones, card);
  if (person) item.people = [person];
  return { type: "item", item, at };
}

/** Social networks whose profile URL or IMPP scheme names an account: github.com/ada → github:ada. */
const NETWORKS: [RegExp, string][] = [
  [/^(?:https?:\/\/)?(?:www\.)?github\.com\/([A-Za-z0-9-]{1,39})\/?$/i, "github"],
  [/^(?:https?:\/\/)?(?:www\.)?(?:twitter|x)\.com\/@?([A-Za-z0-9_]{1,15})\/?$/i, "twitter"],
  [/^(?:https?:\/\/)?(?:www\.)?linkedin\.com\/in\/([A-Za-z0-9_-]{1,100})\/?$/i, "linkedin"],
  [/^(?:https?:\/\/)?(?:www\.)?gitlab\.com\/([A-Za-z0-9_.-]{1,100})\/?$/i, "gitlab"],
  [/^(?:skype|callto):([A-Za-z0-9_.:-]{1,100})$/i, "skype"],
  [/^(?:xmpp|im):([^\s@]{1,100}@[^\s@]{1,200})$/i, "xmpp"],
];

function profileHandle(value: string, typeHint: string | undefined): ItemHandle | null {
  for (const [pattern, network] of NETWORKS) {
    const match = pattern.exec(value.trim());
    if (match)
      return network === "github"
        ? { kind: "github", value: match[1]! }
        : { kind: "handle", value: `${network}/${match[1]}` };
  }
  if (typeHint === "github" && /^[A-Za-z0-9-]{1,39}$/.test(value.trim()))
    return { kind: "github", value: value.trim() };
  const hint = typeHint && /^[a-z][a-z0-9-]{1,30}$/.test(typeHint) ? typeHint : undefined;
  if (hint && /^@?[A-Za-z0-9_.-]{1,100}$/.test(value.trim()))
    return { kind: "handle", value: `${hint}/${value.trim().replace(/^@/, "")}` };
  return null;
}

/**
 * The person one card describes: its name, every EMAIL, TEL and social profile (X-SOCIALPROFILE, IMPP,
 * X-GITHUB/X-TWITTER, profile URLs) as handles of one account, and NICKNAMEs as aliases. Bounded: at most
 * MAX_PERSON_HANDLES handles (a card of 1,000 addresses keeps the first ones) and MAX_PERSON_ALIASES aliases.
 */
function cardPerson(name: string, emails: string[], phones: string[], card: Property[]): ItemPerson | null {
  const handles: ItemHandle[] = [];
  const seen = new Set<string>();
  const push = (h: ItemHandle | null) => {
    if (!h || h.value.length > MAX_HANDLE_VALUE || handles.length >= MAX_PERSON_HANDLES) return;
    const key = `${h.kind}:${h.value.toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    handles.push(h);
  };
  for (const e of emails)
    if (e.includes("@") && e.length <= 254) push({ kind: "email", value: e.toLowerCase() });
  for (const t of phones) if (normalisePhone(t)) push({ kind: "phone", value: t });
  for (const p of card) {
    const social = /^X-(SOCIALPROFILE|GITHUB|TWITTER|SKYPE|LINKEDIN)$/.exec(p.name)?.[1];
    if (social) {
      const hint = social === "SOCIALPROFILE" ? p.params.TYPE?.[0]?.toLowerCase() : social.toLowerCase();
      push(profileHandle(unescapeText(p.value), hint));
    } else if (p.name === "IMPP" || p.name === "URL") {
      push(profileHandle(unescapeText(p.value), undefined));
    }
  }
  const aliases = card
    .filter((p) => p.name === "NICKNAME")
    .flatMap((p) => unescapeText(p.value).split(/\s*,\s*/))
    .flatMap((a) => storableText(a, MAX_PERSON_NAME) ?? [])
    .slice(0, MAX_PERSON_ALIASES);
  const first = handles[0];
  const email = first?.kind === "email" ? first.value : undefined;
  const rest = email ? handles.slice(1) : handles;
  if (!email && rest.length === 0 && aliases.length === 0) return null;
  return keepValid({
    role: "contact",
    name: storableText(name, MAX_PERSON_NAME) ?? name.slice(0, MAX_PERSON_NAME),
    ...(email ? { email } : {}),
    ...(rest.length > 0 ? { handles: rest } : {}),
    ...(aliases.length > 0 ? { aliases } : {}),
  });
}

/** REV as an instant: `20240102T030405Z`, `2024-01-02T03:04:05Z` or a plain date. */
function parseRev(value: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:T(\d{2}):?(\d{2}):?(\d{2})?)?/.exec(v);
  if (!m) return undefined;
  const ms = Date.UTC(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
  );
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
