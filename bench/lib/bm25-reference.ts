/**
 * A textbook Okapi BM25 (k1 1.2, b 0.75), computed in the benchmark over the same items the service holds,
 * as the reference its keyword channel is measured against: words are lowercase runs of letters and digits
 * from the title, author and body, English stop words left out, no stemming; idf = ln(1 + (N - df + 0.5) /
 * (df + 0.5)); length in words.
 */

const K1 = 1.2;
const B = 0.75;

const STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both " +
    "but by can did do does doing down during each few for from further had has have having he her here hers herself " +
    "him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only " +
    "or other our ours ourselves out over own same she should so some such than that the their theirs them themselves " +
    "then there these they this those through to too under until up very was we were what when where which while who " +
    "whom why will with you your yours yourself yourselves s t don"
  ).split(" "),
);

export interface ReferenceDocument {
  id: string;
  title?: string | null;
  author?: string | null;
  body: string;
}

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w));
}

export class Bm25Reference {
  private readonly postings = new Map<string, Map<number, number>>();
  private readonly lengths: number[] = [];
  private readonly ids: string[] = [];
  private readonly averageLength: number;

  constructor(documents: readonly ReferenceDocument[]) {
    for (const doc of documents) {
      const tokens = words([doc.title ?? "", doc.author ?? "", doc.body].join(" "));
      const at = this.ids.length;
      this.ids.push(doc.id);
      this.lengths.push(tokens.length);
      for (const token of tokens) {
        const posting = this.postings.get(token) ?? new Map<number, number>();
        this.postings.set(token, posting);
        posting.set(at, (posting.get(at) ?? 0) + 1);
      }
    }
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.lengths.length);
  }

  /** The `k` best documents' ids for `query`, best first (ties by position, later first: newer items). */
  search(query: string, k: number): string[] {
    const n = this.ids.length;
    const scores = new Map<number, number>();
    for (const term of new Set(words(query))) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5));
      for (const [doc, tf] of posting) {
        const norm = 1 - B + (B * this.lengths[doc]!) / this.averageLength;
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + K1 * norm));
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || b[0] - a[0])
      .slice(0, k)
      .map(([doc]) => this.ids[doc]!);
  }
}
