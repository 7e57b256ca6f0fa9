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

/** Readable text from an HTML body: scripts and styles dropped, blocks on their own lines, tags removed. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|tr|li|h[1-6]|blockquote|table)\s*>/gi, "\n")
    .replace(/<li\b[^>]*>/gi, "- ")
    .replace(/<[^>]+>/g, "");
  return decodeEntities(text)
    .replace(/[ \t\u00a0]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Text safe for Postgres (no NUL) and within the body limit; `truncated` says whether it was cut. */
export function boundedText(text: string, max = MAX_BODY_CHARS): { text: string; truncated: boolean } {
  const clean = text.replaceAll("\u0000", "");
  return clean.length > max
    ? { text: clean.slice(0, max), truncated: true }
    : { text: clean, truncated: false };
}

/** Hex SHA-256 of bytes (Web Crypto: the same in Node and in Workers). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
