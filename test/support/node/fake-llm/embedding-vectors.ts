/**
 * The fake LLM's embeddings: deterministic hashed features, so texts that share words are close and
 * texts that share none are nearly orthogonal. Pure (no Node imports): the tests in workerd import it to
 * compute the vectors the server answers with.
 *
 * Normalisation: lower case, diacritics dropped, hyphens, underscores, slashes and apostrophes split words
 * ("cut-over" is "cut over"). Features (each hashed with a sign into `dimensions` buckets):
 *   - each word that is not a stop word (weight 1), with a naive stem ("deadlines" and "deadline" share it);
 *   - each pair of adjacent words that are not stop words, as a pair (0.5) and joined (0.7: "cut over"
 *     has the word "cutover");
 *   - each character trigram of each word, padded (0.25), so spelling variants stay close.
 * A feature's weights are summed over the text and damped (log(1 + w)), so repetition counts for little.
 * The result is L2-normalised and never all zeros (a text with no letters or digits gets a feature of its
 * own raw text).
 */

export const DEFAULT_FAKE_EMBEDDING_DIMENSIONS = 256;

const STOP_WORDS = new Set(
  `a an and are as at be but by for from has have in is it its of on or that the this to was were will with`.split(
    " ",
  ),
);

export function fakeEmbedding(
  text: string,
  dimensions: number = DEFAULT_FAKE_EMBEDDING_DIMENSIONS,
): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  // Weights summed per feature, then damped (log): a word repeated fifty times is not fifty times the topic.
  const features = new Map<string, number>();
  const add = (feature: string, weight: number) =>
    features.set(feature, (features.get(feature) ?? 0) + weight);
  const words = normalisedWords(text);
  const content = words.filter((w) => !STOP_WORDS.has(w));
  for (const word of content.length > 0 ? content : words) {
    add(`w:${stem(word)}`, 1);
    const padded = `^${word}$`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.25);
  }
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i]!, words[i + 1]!];
    if (STOP_WORDS.has(a) || STOP_WORDS.has(b)) continue;
    add(`p:${stem(a)} ${stem(b)}`, 0.5);
    add(`w:${stem(`${a}${b}`)}`, 0.7);
  }
  if (features.size === 0) add(`raw:${text}`, 1);
  for (const [feature, weight] of features) {
    const h = fnv1a(feature);
    vector[h % dimensions]! += ((h & 0x80000000) === 0 ? 1 : -1) * Math.log1p(weight);
  }
  let norm = Math.hypot(...vector);
  // Cancelling signs could still leave nothing: a fixed bucket then.
  if (norm === 0) {
    vector[fnv1a(`fallback:${text}`) % dimensions] = 1;
    norm = 1;
  }
  return vector.map((x) => x / norm);
}

export function normalisedWords(text: string): string[] {
  return (
    text
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .replace(/[-_/'’]+/g, " ")
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Cosine similarity of two vectors of one length. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

function stem(word: string): string {
  for (const suffix of ["ing", "ed", "s"]) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

/** FNV-1a, 32 bits, over the UTF-16 code units. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
