/**
 * Resolved people views kept in the Worker's memory, per viewer, and served again only while their inputs
 * are unchanged: each read first asks the store for the viewer's fingerprint (one indexed statement over the
 * items they may see, the workspace's corrections and their member address) and resolves again when it
 * differs. So a viewer who lost an item, or whose workspace corrected a person, is resolved afresh on their
 * next request, exactly as without the cache; a view is never shared between viewers, and nothing leaves
 * the isolate. Bounded by the sightings the kept views were resolved from, least recently used out first.
 */
import type { PeopleView } from "../domain/people-view";

/** Sightings the kept views may have been resolved from, together (about 200 bytes each in memory). */
export const VIEW_CACHE_SIGHTINGS = 150_000;

interface Entry {
  fingerprint: string;
  view: PeopleView;
  weight: number;
}

export class PeopleViewCache {
  private entries = new Map<string, Entry>();
  private weight = 0;

  constructor(private readonly capacity = VIEW_CACHE_SIGHTINGS) {}

  /** The view kept for `key` when it was resolved from inputs with this fingerprint. */
  get(key: string, fingerprint: string): PeopleView | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.fingerprint !== fingerprint) {
      this.drop(key, entry);
      return undefined;
    }
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.view;
  }

  set(key: string, fingerprint: string, view: PeopleView, sightings: number): void {
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    const weight = Math.max(1, sightings);
    if (weight > this.capacity) return;
    for (const [k, e] of this.entries) {
      if (this.weight + weight <= this.capacity) break;
      this.drop(k, e);
    }
    this.entries.set(key, { fingerprint, view, weight });
    this.weight += weight;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}
