/** Chunking an item's body for its embeddings (domain/chunks.ts): spans, sizes, overlap, bounds. */
import { describe, expect, it } from "vitest";
import {
  CHUNK_MAX_PER_ITEM,
  CHUNK_SNIPPET_CHARS,
  type Chunk,
  chunkItem,
  chunkPrefix,
} from "../../src/domain/chunks";

const sentence = (i: number) => `Sentence number ${i} talks about the ledger cut-over and its owners. `;
const prose = (sentences: number) => Array.from({ length: sentences }, (_, i) => sentence(i)).join("");

/** Every chunk's text is its prefix and its span of the body. */
function expectSpansMatchBody(chunks: Chunk[], body: string, prefix: string): void {
  for (const chunk of chunks) {
    expect(chunk.text).toBe(prefix + body.slice(chunk.start, chunk.end));
  }
}

describe("chunkItem", () => {
  it("keeps a short body in one chunk spanning all of it, prefixed with the kind and title", () => {
    const chunks = chunkItem({ kind: "email", title: "Q3 budget", body: "Ada approved the budget." }, 512);
    expect(chunks).toEqual([
      {
        index: 0,
        start: 0,
        end: 24,
        text: "email: Q3 budget\n\nAda approved the budget.",
        snippet: "Ada approved the budget.",
      },
    ]);
  });

  it("makes one chunk of an empty body, so every item has a vector of its title", () => {
    expect(chunkItem({ kind: "task", title: "Call Ben", body: "" }, 512)).toEqual([
      { index: 0, start: 0, end: 0, text: "task: Call Ben\n\n", snippet: "" },
    ]);
    expect(chunkItem({ kind: "note", title: null, body: "" }, 512)[0]?.text).toBe("note:\n\n");
  });

  it("splits a long body into overlapping spans that cover it in order, each within the model's budget", () => {
    const body = prose(200);
    const prefix = chunkPrefix({ kind: "doc", title: "Ledger" });
    const chunks = chunkItem({ kind: "doc", title: "Ledger", body }, 512);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks[0]!.start).toBe(0);
    expect(chunks.at(-1)!.end).toBe(body.length);
    // 512 tokens at 4 characters, with 10% headroom.
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(Math.floor(512 * 0.9 * 4));
    for (const [i, chunk] of chunks.entries()) {
      expect(chunk.index).toBe(i);
      if (i === 0) continue;
      const previous = chunks[i - 1]!;
      expect(chunk.start).toBeGreaterThan(previous.start);
      // Overlapping by 15% of the body's window, less the part of a word the start moves past.
      const window = Math.floor(512 * 0.9 * 4) - prefix.length;
      const overlap = previous.end - chunk.start;
      expect(overlap).toBeLessThanOrEqual(Math.floor(window * 0.15));
      expect(overlap).toBeGreaterThan(Math.floor(window * 0.15) - 20);
    }
    expectSpansMatchBody(chunks, body, prefix);
  });

  it("cuts at sentence ends and starts the next chunk at the beginning of a word", () => {
    const body = prose(200);
    const chunks = chunkItem({ kind: "doc", title: null, body }, 512);
    for (const chunk of chunks.slice(0, -1)) expect(body.slice(chunk.end - 2, chunk.end)).toBe(". ");
    for (const chunk of chunks.slice(1)) expect(body[chunk.start - 1]).toMatch(/\s/);
  });

  it("prefers a paragraph break to a sentence end when one falls in the last third of the window", () => {
    const first = prose(20);
    const body = `${first}\n\n${prose(40)}`;
    const [chunk] = chunkItem({ kind: "doc", title: null, body }, 512);
    expect(chunk!.end).toBe(first.length + 2);
  });

  it("sizes chunks by the model's token limit, at most 512 tokens even for a model that reads more", () => {
    const body = prose(400);
    const small = chunkItem({ kind: "doc", title: null, body }, 128);
    const large = chunkItem({ kind: "doc", title: null, body }, 8191);
    const longest = (chunks: Chunk[]) => Math.max(...chunks.map((c) => c.text.length));
    expect(longest(small)).toBeLessThanOrEqual(Math.floor(128 * 0.9 * 4));
    expect(longest(large)).toBeLessThanOrEqual(Math.floor(512 * 0.9 * 4));
    expect(longest(large)).toBeGreaterThan(Math.floor(512 * 0.9 * 4 * 0.6));
    expect(small.length).toBeGreaterThan(large.length * 3);
  });

  it("cuts a body without spaces at the budget, never inside a surrogate pair", () => {
    const body = "😀".repeat(5000);
    const chunks = chunkItem({ kind: "file", title: null, body }, 512);
    for (const chunk of chunks) {
      expect(chunk.start % 2).toBe(0);
      expect(chunk.end % 2).toBe(0);
      expect(chunk.text).not.toMatch(
        /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
      );
    }
  });

  it(`embeds at most ${CHUNK_MAX_PER_ITEM} chunks of a huge body: its beginning, quickly`, () => {
    const body = prose(100_000); // about 7 MB
    const started = performance.now();
    const chunks = chunkItem({ kind: "doc", title: "Archive", body }, 512);
    expect(performance.now() - started).toBeLessThan(500);
    expect(chunks).toHaveLength(CHUNK_MAX_PER_ITEM);
    expect(chunks.at(-1)!.end).toBeLessThan(body.length);
    expect(chunks.at(-1)!.end).toBeGreaterThan(60_000);
  });

  it("keeps the prefix short for a long title and collapses its whitespace", () => {
    const title = `Minutes\n\nof the   ${"very ".repeat(100)}long meeting`;
    const prefix = chunkPrefix({ kind: "call", title });
    expect(prefix.startsWith("call: Minutes of the very very")).toBe(true);
    expect(prefix.length).toBeLessThanOrEqual("call: ".length + 200 + "…\n\n".length);
  });

  it("gives each chunk a snippet of its span's beginning, bounded and on one line", () => {
    const body = `First line\n\n${"word ".repeat(500)}`;
    const [chunk] = chunkItem({ kind: "note", title: null, body }, 512);
    expect(chunk!.snippet.startsWith("First line word word")).toBe(true);
    expect(chunk!.snippet.length).toBe(CHUNK_SNIPPET_CHARS);
    expect(chunk!.snippet.endsWith("…")).toBe(true);
  });
});
