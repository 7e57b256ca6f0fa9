/** Groups import items into POST /items batches: at most 500 items and 5 MB of JSON each. */
import type { ImportItem, RecordPosition } from "./records";

export const MAX_BATCH_ITEMS = 500;
/** Under the API's 5 MB so the `{"items":[…]}` wrapper and commas always fit. */
export const MAX_BATCH_BYTES = 5 * 1024 * 1024 - 16 * 1024;

/** One item as POST /items takes it. */
export type ApiItem = Omit<ImportItem, "links"> & {
  source: string;
  links?: { source: string; externalId: string; kind?: string }[];
};

export interface Pending {
  item: ApiItem;
  at: RecordPosition;
  bytes: number;
}

const encoder = new TextEncoder();

/** The API item for an import item: the source on it and on its links (so a link can wait for its target). */
export function toApiItem(item: ImportItem, source: string): ApiItem {
  const { links, ...rest } = item;
  const api: ApiItem = { ...rest, source };
  if (links && links.length > 0) api.links = links.map((l) => ({ source, ...l }));
  return api;
}

export function pending(item: ApiItem, at: RecordPosition): Pending {
  return { item, at, bytes: encoder.encode(JSON.stringify(item)).length + 1 };
}

export class Batcher {
  private current: Pending[] = [];
  private bytes = 0;

  /** Adds one item; returns the batch it completed, if any. */
  add(entry: Pending): Pending[] | null {
    let full: Pending[] | null = null;
    if (
      this.current.length >= MAX_BATCH_ITEMS ||
      (this.current.length > 0 && this.bytes + entry.bytes > MAX_BATCH_BYTES)
    ) {
      full = this.flush();
    }
    this.current.push(entry);
    this.bytes += entry.bytes;
    return full;
  }

  flush(): Pending[] | null {
    if (this.current.length === 0) return null;
    const batch = this.current;
    this.current = [];
    this.bytes = 0;
    return batch;
  }
}
