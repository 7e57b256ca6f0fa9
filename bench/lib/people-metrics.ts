/**
 * How well a clustering of identifiers matches the labelled truth: pairwise precision and recall of the
 * pairs it puts together, B-cubed precision, recall and F1 (per identifier, averaged), and whether a trap's
 * groups of identifiers ended in one cluster. Pure.
 */

export interface ClusterScores {
  pairs: number;
  truePairs: number;
  correctPairs: number;
  pairPrecision: number;
  pairRecall: number;
  bcubedPrecision: number;
  bcubedRecall: number;
  bcubedF1: number;
}

/** Pairs of keys in one cluster, as `a\u0000b` with a < b. */
export function pairsOf(clusters: Map<string, string>): Set<string> {
  const byCluster = new Map<string, string[]>();
  for (const [key, cluster] of clusters) byCluster.set(cluster, [...(byCluster.get(cluster) ?? []), key]);
  const pairs = new Set<string>();
  for (const members of byCluster.values()) {
    members.sort();
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) pairs.add(`${members[i]}\u0000${members[j]}`);
    }
  }
  return pairs;
}

const ratio = (n: number, d: number): number => (d === 0 ? 1 : n / d);

/** Scores `predicted` (key → cluster) against `truth` (key → person) over the keys both know. */
export function scoreClusters(predicted: Map<string, string>, truth: Map<string, string>): ClusterScores {
  const keys = [...predicted.keys()].filter((k) => truth.has(k));
  const pred = new Map(keys.map((k) => [k, predicted.get(k)!]));
  const real = new Map(keys.map((k) => [k, truth.get(k)!]));
  const predPairs = pairsOf(pred);
  const truePairs = pairsOf(real);
  let correct = 0;
  for (const p of predPairs) if (truePairs.has(p)) correct++;

  const members = (map: Map<string, string>) => {
    const out = new Map<string, Set<string>>();
    for (const [k, c] of map) out.set(c, (out.get(c) ?? new Set()).add(k));
    return out;
  };
  const predMembers = members(pred);
  const realMembers = members(real);
  let bp = 0;
  let br = 0;
  for (const k of keys) {
    const p = predMembers.get(pred.get(k)!)!;
    const r = realMembers.get(real.get(k)!)!;
    let both = 0;
    for (const x of p) if (r.has(x)) both++;
    bp += both / p.size;
    br += both / r.size;
  }
  const bcubedPrecision = keys.length ? bp / keys.length : 1;
  const bcubedRecall = keys.length ? br / keys.length : 1;
  return {
    pairs: predPairs.size,
    truePairs: truePairs.size,
    correctPairs: correct,
    pairPrecision: ratio(correct, predPairs.size),
    pairRecall: ratio(correct, truePairs.size),
    bcubedPrecision,
    bcubedRecall,
    bcubedF1: (2 * bcubedPrecision * bcubedRecall) / (bcubedPrecision + bcubedRecall || 1),
  };
}

/** Whether any two of a trap's groups of keys share a cluster. */
export function trapMerged(groups: string[][], predicted: Map<string, string>): boolean {
  const clusterOf = groups.map(
    (g) => new Set(g.flatMap((k) => (predicted.has(k) ? [predicted.get(k)!] : []))),
  );
  for (let i = 0; i < clusterOf.length; i++) {
    for (let j = i + 1; j < clusterOf.length; j++) {
      for (const c of clusterOf[i]!) if (clusterOf[j]!.has(c)) return true;
    }
  }
  return false;
}
