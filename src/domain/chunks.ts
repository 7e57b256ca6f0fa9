/**
 * Splitting an item into the chunks that get embedded (pure). Each chunk is a span [start, end) of the
 * body, in UTF-16 code units (JavaScript string indices), and the text sent to the embedder is that span
 * prefixed with the item's kind and title, so a chunk in the middle of a long document still says what
 * it belongs to.
 *
 * Sizes come from the model: a character budget of ~4 characters a token (with 10% headroom for text
 * that tokenizes worse, such as numbers, code or other scripts), at most CHUNK_MAX_TOKENS even for models
 * that read more (retrieval works better on passages than on whole documents). Consecutive chunks
 * overlap by ~15%, so a sentence cut at a boundary is whole in one of them; cuts prefer a paragraph break,
 * then a line break, then a sentence end, then a space, in the last third of the window.
 *
 * Bounded: at most CHUNK_MAX_PER_ITEM chunks an item, the body's beginning (about 100,000 characters at
 * 512 tokens a chunk). The rest of a longer body has no vector; full-text search still covers its first
 * 200,000 characters. The work is proportional to what is chunked, not to the body's length.
 */
import type { ItemKind } from "./item-schema";

export const CHARS_PER_TOKEN = 4;
/** Share of the model's token limit a chunk may use (the 4-characters estimate is not a tokenizer). */
export const TOKEN_HEADROOM = 0.9;
/** Longest chunk, in tokens, whatever the model takes. */
export const CHUNK_MAX_TOKENS = 512;
export const CHUNK_OVERLAP = 0.15;
export const CHUNK_MAX_PER_ITEM = 64;
/** Longest title kept in each chunk's prefix. */
export const CHUNK_TITLE_CHARS = 200;
export const CHUNK_SNIPPET_CHARS = 240;
/** A chunk's body part is never smaller than this, however long the prefix. */
const MIN_BODY_CHARS = 200;

export interface ChunkSource {
  kind: ItemKind;
  title: string | null;
  body: string;
}

export interface Chunk {
  /** 0, 1, ... in body order. */
  index: number;
  /** The span of the body, [start, end), in UTF-16 code units. */
  start: number;
  end: number;
  /** What is embedded: "<kind>: <title>" and the span. */
  text: string;
  /** The span's beginning, whitespace collapsed: enough to show a hit. */
  snippet: string;
}

/** The chunks of an item for a model that reads at most `maxInputTokens` tokens of one input. */
export function chunkItem(item: ChunkSource, maxInputTokens: number): Chunk[] {
  const budget = Math.floor(Math.min(maxInputTokens, CHUNK_MAX_TOKENS) * TOKEN_HEADROOM * CHARS_PER_TOKEN);
  const prefix = chunkPrefix(item);
  const window = Math.max(MIN_BODY_CHARS, budget - prefix.length);
  const overlap = Math.floor(window * CHUNK_OVERLAP);
  const body = item.body;
  const chunks: Chunk[] = [];
  let start = 0;
  while (chunks.length < CHUNK_MAX_PER_ITEM) {
    const end = cutPoint(body, start, window);
    chunks.push({
      index: chunks.length,
      start,
      end,
      text: `${prefix}${body.slice(start, end)}`,
      snippet: snippetOf(body, start, end),
    });
    if (end >= body.length) break;
    start = nextStart(body, start, end, overlap);
  }
  return chunks;
}

/** "email: Q3 budget\n\n"; the kind alone when there is no title. */
export function chunkPrefix(item: Pick<ChunkSource, "kind" | "title">): string {
  const title = (item.title ?? "").replace(/\s+/g, " ").trim();
  if (title === "") return `${item.kind}:\n\n`;
  const kept = title.length > CHUNK_TITLE_CHARS ? `${safeSlice(title, CHUNK_TITLE_CHARS)}…` : title;
  return `${item.kind}: ${kept}\n\n`;
}

/** Where the chunk starting at `start` ends: at most `window` on, at the best boundary in its last third. */
function cutPoint(body: string, start: number, window: number): number {
  const hardEnd = start + window;
  if (hardEnd >= body.length) return body.length;
  const floor = start + Math.floor((window * 2) / 3);
  const region = body.slice(floor, hardEnd);
  for (const boundary of [/\n\s*\n/g, /\n/g, /[.!?…]["')\]]*\s/g, /\s/g]) {
    const at = lastMatchEnd(region, boundary);
    if (at > 0) return floor + at;
  }
  return avoidSplitPair(body, hardEnd);
}

/** The next chunk starts `overlap` before the end, moved forward to the start of a word. */
function nextStart(body: string, start: number, end: number, overlap: number): number {
  let next = Math.max(start + 1, end - overlap);
  const space = body.slice(next, end).search(/\s\S/);
  if (space >= 0) next += space + 1;
  return avoidSplitPair(body, next);
}

function lastMatchEnd(text: string, pattern: RegExp): number {
  let end = -1;
  for (const match of text.matchAll(pattern)) end = match.index + match[0].length;
  return end;
}

/** Moves a cut off the middle of a surrogate pair (an emoji, a rare CJK character) to before it. */
function avoidSplitPair(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff && at > 0 ? at - 1 : at;
}

function safeSlice(text: string, length: number): string {
  return text.slice(0, avoidSplitPair(text, length));
}

function snippetOf(body: string, start: number, end: number): string {
  // Read a little more than the snippet, so collapsing whitespace still fills it.
  const text = body
    .slice(start, Math.min(end, start + CHUNK_SNIPPET_CHARS * 2))
    .replace(/\s+/g, " ")
    .trim();
  return text.length > CHUNK_SNIPPET_CHARS ? `${safeSlice(text, CHUNK_SNIPPET_CHARS - 1)}…` : text;
}
