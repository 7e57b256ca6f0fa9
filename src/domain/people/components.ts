/**
 * Union-find over identifier keys with cannot-link constraints: a union is refused when it would put a
 * `distinct` pair in one component, and (for scored links) when the two components appear as distinct
 * participants of one item. Pure.
 */
export class Components {
  private parent = new Map<string, string>();
  private forbid = new Map<string, Set<string>>();
  private itemSets = new Map<string, Set<string>>();

  constructor(keys: Iterable<string>) {
    for (const key of keys) this.parent.set(key, key);
  }
  find(key: string): string {
    let root = key;
    while (this.parent.get(root) !== root) root = this.parent.get(root)!;
    let node = key;
    while (node !== root) {
      const next = this.parent.get(node)!;
      this.parent.set(node, root);
      node = next;
    }
    return root;
  }
  forbidPair(a: string, b: string): void {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const root = this.find(x);
      const set = this.forbid.get(root) ?? new Set<string>();
      set.add(y);
      this.forbid.set(root, set);
    }
  }
  setItems(key: string, items: Set<string>): void {
    this.itemSets.set(key, items);
  }
  /** Whether a distinct pair would end in one component. */
  forbidden(ra: string, rb: string): boolean {
    for (const [x, y] of [
      [ra, rb],
      [rb, ra],
    ] as const) {
      for (const other of this.forbid.get(x) ?? []) if (this.find(other) === y) return true;
    }
    return false;
  }
  /** Whether the two components appear together in one item (as distinct participants). */
  coParticipants(ra: string, rb: string): boolean {
    const a = this.itemSets.get(ra);
    const b = this.itemSets.get(rb);
    if (!a || !b) return false;
    const [small, large] = a.size <= b.size ? [a, b] : [b, a];
    for (const item of small) if (large.has(item)) return true;
    return false;
  }
  union(a: string, b: string, checkCoItems: boolean): boolean {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return true;
    if (this.forbidden(ra, rb)) return false;
    if (checkCoItems && this.coParticipants(ra, rb)) return false;
    this.parent.set(rb, ra);
    const fa = this.forbid.get(ra);
    const fb = this.forbid.get(rb);
    if (fb) this.forbid.set(ra, fa ? new Set([...fa, ...fb]) : fb);
    const ia = this.itemSets.get(ra);
    const ib = this.itemSets.get(rb);
    if (ib) {
      if (!ia) this.itemSets.set(ra, ib);
      else if (ia.size >= ib.size) for (const i of ib) ia.add(i);
      else {
        for (const i of ia) ib.add(i);
        this.itemSets.set(ra, ib);
      }
    }
    return true;
  }
}
