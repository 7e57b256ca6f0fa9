/** Small text helpers shared by the pure parsers: HTML to text, NUL removal, bounded bodies, hashing. */

/** The body limit an imported item keeps (the API takes up to 5 MB a request; one item must leave room). */
export const MAX_BODY_CHARS = 1_000_000;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Decodes `&amp;`, `&#39;`, `&#x27;` and the few named entities mail and chat exports use. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] === "#") {
      const n =
        code[1] === "x" || code[1] === "X" ? Number.parseInt(code.slice(2), 16) : Number(code.slice(1));
      return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : whole;
    }
    return ENTITIES[code.toLowerCase()] ?? whole;
  });
}

/**
 * Readable text from an HTML body: scripts, styles and the head dropped, blocks on their own lines, tags
 * removed. Linear in the HTML: no pattern here can rescan the rest of the text from every `<` (a body of
 * unclosed `<script` or `<` characters is as quick as any other).
 */
export function htmlToText(html: string): string {
  const text = withoutElements(html, /<(script|style|head)\b/gi)
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|tr|li|h[1-6]|blockquote|table)\s*>/gi, "\n")
    .replace(/<li\b[^<>]*>/gi, "- ")
    .replace(/<[^<>]+>/g, "");
  return decodeEntities(text)
    .replace(/(?<![ \t\u00a0])[ \t\u00a0]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** The HTML without the elements `open` finds, each up to its closing tag (an unclosed one is left). */
function withoutElements(html: string, open: RegExp): string {
  const parts: string[] = [];
  const unclosed = new Set<string>();
  let kept = 0;
  for (let m = open.exec(html); m; m = open.exec(html)) {
    const name = m[1]!.toLowerCase();
    if (unclosed.has(name)) continue;
    const close = new RegExp(`</${name}\\s*>`, "gi");
    close.lastIndex = open.lastIndex;
    const end = close.exec(html);
    if (!end) {
      // No closing tag after this one, so none after any later one either: each name is searched once.
      unclosed.add(name);
      continue;
    }
    parts.push(html.slice(kept, m.index));
    kept = end.index + end[0].length;
    open.lastIndex = kept;
  }
  parts.push(html.slice(kept));
  return parts.join("");
}

/** At most `max` UTF-16 units, never cutting a surrogate pair in two. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.charCodeAt(max - 1);
  return text.slice(0, cut >= 0xd800 && cut <= 0xdbff ? max - 1 : max);
}

/** A short field (a title, a name, an id) as the API takes it: no NUL, well-formed, trimmed, at most `max` long. */
export function storableText(value: string | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  const clean = clipText(value.replaceAll("\u0000", "").toWellFormed().trim(), max).trim();
  return clean === "" ? undefined : clean;
}

/** Text safe for Postgres (no NUL, well-formed) and within the body limit; `truncated` says whether it was cut. */
export function boundedText(text: string, max = MAX_BODY_CHARS): { text: string; truncated: boolean } {
  const clean = text.replaceAll("\u0000", "").toWellFormed();
  return clean.length > max
    ? { text: clipText(clean, max), truncated: true }
    : { text: clean, truncated: false };
}

/** A size limit in bytes as people write it: `64 MB`, `0.5 MB`. */
export function megabytes(bytes: number): string {
  return `${Number((bytes / 1024 / 1024).toFixed(3))} MB`;
}
