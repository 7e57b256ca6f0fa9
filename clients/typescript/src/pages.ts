/** Cursor pagination as async iteration: `for await (const run of memory.runs())`, or `.pages()`. */
import { UnifiedMemoryError } from "./errors.js";

export interface Page<T> {
  entries: T[];
  nextCursor: string | null;
}

export class Paginator<T, P> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<P>,
    private readonly entriesOf: (page: P) => Page<T>,
  ) {}

  /** Every page, as the API answered it, until `nextCursor` is null. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      const next = this.entriesOf(page).nextCursor;
      if (next === null) return;
      if (seen.has(next)) {
        throw new UnifiedMemoryError({
          code: "invalid_response",
          message: "The server answered a cursor it had already given: stopping instead of looping",
          status: 200,
        });
      }
      seen.add(next);
      cursor = next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* this.entriesOf(page).entries;
  }

  /** Every entry, collected (stops after `max` of them when given). */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<T[]> {
    const out: T[] = [];
    if (max <= 0) return out;
    for await (const entry of this) {
      out.push(entry);
      if (out.length >= max) break;
    }
    return out;
  }
}
