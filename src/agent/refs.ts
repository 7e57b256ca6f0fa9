import type { ItemKind } from "../domain/item-schema";
import { REF_PREFIX } from "./wire-format";

/** A ref as the model sees it: a kind letter plus a per-kind counter, e.g. "E12". */
export const REF_SHAPE = /^[A-Z]\d{1,6}$/;

export interface RefEntry {
  ref: string;
  id: string;
  kind: ItemKind;
}

/**
 * The per-run table between short refs and item ids. An item keeps its ref for the whole run; refs are
 * only ever handed out for items a scoped tool (or the subject's previous memory) returned, so a ref the
 * model invents resolves to nothing.
 */
export class RefTable {
  private readonly byId = new Map<string, RefEntry>();
  private readonly byRef = new Map<string, RefEntry>();
  private readonly counters = new Map<string, number>();

  /** The item's ref, assigning the next one for its kind on first sight. */
  register(item: { id: string; kind: ItemKind }): string {
    const known = this.byId.get(item.id);
    if (known) return known.ref;
    const prefix = REF_PREFIX[item.kind];
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    const entry: RefEntry = { ref: `${prefix}${n}`, id: item.id, kind: item.kind };
    this.byId.set(item.id, entry);
    this.byRef.set(entry.ref, entry);
    return entry.ref;
  }

  /** The entry behind a ref (case-insensitive), or undefined for a ref this run never handed out. */
  resolve(ref: string): RefEntry | undefined {
    return this.byRef.get(ref.trim().toUpperCase());
  }

  refOf(id: string): string | undefined {
    return this.byId.get(id)?.ref;
  }

  get size(): number {
    return this.byId.size;
  }
}
