/** Splits inputs into consecutive batches bounded by a count and a total weight (e.g. estimated tokens). */
export function batchesOf<T>(
  items: readonly T[],
  limits: { maxItems: number; maxWeight: number; weight: (item: T) => number },
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let weight = 0;
  for (const item of items) {
    const w = limits.weight(item);
    // An item heavier than the bound on its own still goes, alone: the provider decides about it.
    if (current.length > 0 && (current.length >= limits.maxItems || weight + w > limits.maxWeight)) {
      batches.push(current);
      current = [];
      weight = 0;
    }
    current.push(item);
    weight += w;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
