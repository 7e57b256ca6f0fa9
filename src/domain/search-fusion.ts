/**
 * Hybrid search's fusion of its two channels (the store runs them side by side and fuses their top
 * candidates here). An item's score is its keyword score over the channel's best (1 for the best match, 0
 * when the keyword channel did not find it) plus the vector weight times its place between the vector
 * channel's farthest and nearest candidates (1 for the nearest). The vector weight is `weights.base` when
 * some keyword candidate holds every word of the query, and rises by up to `weights.uncovered` as the best
 * one covers less of the query's idf: a query whose keyword matches are only incidental words is ranked
 * by meaning. At the base weight, an item only the vector channel found must be nearer than every item
 * both channels found: when the words of the query found items, the vector channel's farther neighbours
 * (which contain none of those words) do not fill the page; when they found nothing the vector channel
 * also found, or covered the query poorly, it adds its candidates freely. Best first, ties newest first,
 * then by id (descending).
 */

/** The keyword channel's candidates, best first: BM25 score, and the share of the query's idf matched. */
export interface KeywordCandidate {
  id: string;
  score: number;
  coverage: number;
  occurredAt: Date;
}

/**
 * The vector channel's weight: `base` when some keyword candidate matches the whole query, rising by up to
 * `uncovered` as the best candidate covers less of it (see fuseChannels).
 */
export interface FusionWeights {
  base: number;
  uncovered: number;
}

/** The vector channel's candidates, nearest first: cosine distance and the nearest chunk's snippet. */
export interface VectorCandidate {
  id: string;
  distance: number;
  snippet: string;
  occurredAt: Date;
}

export interface FusedCandidate {
  id: string;
  score: number;
  occurredAt: Date;
  /**
   * The nearest chunk's snippet when the vector channel placed the item at least as high as the keyword
   * channel did; null when the snippet should be cut around the query's words.
   */
  chunkSnippet: string | null;
}

/** Where a page ends: the last hit's (score, occurred at, id); the next page starts below it. */
export interface FusedPosition {
  score: number;
  occurredAt: Date;
  id: string;
}

export function fuseChannels(
  keyword: readonly KeywordCandidate[],
  vector: readonly VectorCandidate[],
  weights: FusionWeights,
): FusedCandidate[] {
  const best = Math.max(0, ...keyword.map((k) => k.score));
  // Rounded: a candidate holding every term sums its terms' shares to 1 within a float's error.
  const strength = Math.min(1, Math.round(Math.max(0, ...keyword.map((k) => k.coverage)) * 1e6) / 1e6);
  const vectorWeight = weights.base + (1 - strength) * weights.uncovered;
  const distances = vector.map((v) => v.distance);
  const nearest = Math.min(...distances);
  const farthest = Math.max(...distances);
  const vectorRel = (d: number) => (farthest - nearest === 0 ? 1 : (farthest - d) / (farthest - nearest));
  const keywordRank = new Map(keyword.map((k, i) => [k.id, { rank: i + 1, k }]));
  const vectorRank = new Map(vector.map((v, i) => [v.id, { rank: i + 1, v }]));
  const bothFound = vector.filter((v) => keywordRank.has(v.id)).map((v) => v.distance);
  const gated = bothFound.length > 0 && (strength === 1 || weights.uncovered === 0);
  const reach = gated ? Math.min(...bothFound) : Number.POSITIVE_INFINITY;

  const fused: FusedCandidate[] = keyword.map((k, i) => {
    const near = vectorRank.get(k.id);
    const score = (best === 0 ? 0 : k.score / best) + vectorWeight * (near ? vectorRel(near.v.distance) : 0);
    const chunkSnippet = near && near.rank <= i + 1 ? near.v.snippet : null;
    return { id: k.id, score, occurredAt: k.occurredAt, chunkSnippet };
  });
  for (const v of vector) {
    if (keywordRank.has(v.id) || v.distance > reach) continue;
    fused.push({
      id: v.id,
      score: vectorWeight * vectorRel(v.distance),
      occurredAt: v.occurredAt,
      chunkSnippet: v.snippet,
    });
  }
  return fused.sort((a, b) => -compareFused(a, b));
}

/** Orders two fused positions as (score, occurred at, id) ascending; a page reads them descending. */
export function compareFused(a: FusedPosition, b: FusedPosition): number {
  return (
    a.score - b.score ||
    a.occurredAt.getTime() - b.occurredAt.getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
