/**
 * vCard (2.1, 3.0, 4.0) → one `contact` item per card. Written here rather than taken from ical.js, whose
 * vCard support stops at 3.0/4.0: 2.1 cards from phones use bare parameters (`TEL;WORK;VOICE:`),
 * quoted-printable values with soft line breaks and `CHARSET=`. Input is bytes so any charset decodes;
 * CRLF, LF-only and folded lines all work.
 */
import type { ImportEvent, ImportItem } from "./records";

interface Property {
  name: string;
  params: Record<string, string[]>;
  value: string;
}

const latin1 = new TextDecoder("latin1");

export function* parseVcf(
  file: { path: string; bytes: Uint8Array },
  options: { fallbackDate: string },
): Iterable<ImportEvent> {
  // Latin-1 maps every byte to one char, so values can be re-decoded in their own charset later.
  const lines = unfold(latin1.decode(file.bytes).replace(/^\u00ef\u00bb\u00bf/, ""));
  let card: Property[] | null = null;
  let index = 0;
  let startLine = 0;
  for (const [lineNo, line] of lines.entries()) {
    if (/^BEGIN:VCARD$/i.test(line.trim())) {
      card = [];
      index++;
      startLine = lineNo + 1;
    } else if (/^END:VCARD$/i.test(line.trim())) {
      if (card)
        yield cardEvent(
          card,
          { file: file.path, position: `card ${index} (line ${startLine})` },
          options.fallbackDate,
        );
      card = null;
    } else if (card && line.trim() !== "") {
      const prop = parseLine(line);
      if (prop) card.push(prop);
    }
  }
  if (card)
    yield {
      type: "error",
      message: "card without END:VCARD",
      at: { file: file.path, position: `card ${index} (line ${startLine})` },
    };
}

/** Joins folded lines (a line starting with space or tab) and quoted-printable soft breaks (`=` at the end). */
function unfold(text: string): string[] {
  const raw = text.split(/\r\n|\n|\r/);
  const out: string[] = [];
  for (const line of raw) {
    const last = out.length - 1;
    if (last >= 0 && /^[ \t]/.test(line)) out[last] += line.slice(1);
    else if (
      last >= 0 &&
      /ENCODING=QUOTED-PRINTABLE|;QUOTED-PRINTABLE/i.test(out[last]!.split(":")[0]!) &&
      out[last]!.endsWith("=")
    ) {
      out[last] = out[last]!.slice(0, -1) + line;
    } else out.push(line);
  }
  return out;
}

function parseLine(line: string): Property | null {
  const colon = valueStart(line);
  if (colon === -1) return null;
  const [nameWithGroup, ...rawParams] = splitUnquoted(line.slice(0, colon), ";");
  const name = nameWithGroup!.split(".").pop()!.toUpperCase();
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
  return { name, params, value: decodeValue(line.slice(colon + 1), params) };
}

/** The colon that ends the name and parameters (a quoted parameter may contain colons). */
function valueStart(line: string): number {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '"') quoted = !quoted;
    else if (line[i] === ":" && !quoted) return i;
  }
  return -1;
}

function splitUnquoted(text: string, separator: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let current = "";
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === separator && !quoted) {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out;
}

function decodeValue(value: string, params: Record<string, string[]>): string {
  const encoding = params.ENCODING?.[0]?.toUpperCase();
  const charset = params.CHARSET?.[0] ?? "utf-8";
  let bytes: Uint8Array;
  if (encoding === "QUOTED-PRINTABLE") {
    const decoded = value.replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    bytes = Uint8Array.from(decoded, (c) => c.charCodeAt(0) & 0xff);
  } else if (encoding === "B" || encoding === "BASE64") {
    return "";
  } else bytes = Uint8Array.from(value, (c) => c.charCodeAt(0) & 0xff);
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
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
  at: { file: string; position: string },
  fallbackDate: string,
): ImportEvent {
  const first = (name: string) => card.find((p) => p.name === name);
  const all = (name: string) => card.filter((p) => p.name === name && p.value.trim() !== "");
  const n = first("N") ? components(first("N")!.value) : [];
  const fromN = [n[3], n[1], n[2], n[0], n[4]].filter(Boolean).join(" ").trim();
  const emails = all("EMAIL").map((p) => unescapeText(p.value));
  const name =
    unescapeText(first("FN")?.value ?? "") || fromN || emails[0] || unescapeText(first("ORG")?.value ?? "");
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
  if (note) lines.push("", note);

  const uid = unescapeText(first("UID")?.value ?? "");
  const externalId = (
    uid ||
    `vcard:${name.toLowerCase()}|${emails
      .map((e) => e.toLowerCase())
      .sort()
      .join(",")}`
  ).slice(0, 500);
  const rev = parseRev(first("REV")?.value);
  const metadata: Record<string, unknown> = { version: first("VERSION")?.value.trim() ?? "unknown" };
  if (emails.length > 0) metadata.emails = emails;
  const phones = all("TEL").map((p) => unescapeText(p.value).replace(/^tel:/i, ""));
  if (phones.length > 0) metadata.phones = phones;
  if (org) metadata.organization = org;
  if (title) metadata.jobTitle = title;
  if (bday) metadata.birthday = bday;

  const item: ImportItem = {
    externalId,
    kind: "contact",
    title: name,
    body: lines.join("\n") || name,
    occurredAt: rev ?? fallbackDate,
    metadata,
  };
  if (emails.length > 0) item.participants = emails;
  const url = all("URL")
    .map((p) => unescapeText(p.value))
    .find((u) => /^https?:\/\//i.test(u));
  if (url) item.url = url;
  return { type: "item", item, at };
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
