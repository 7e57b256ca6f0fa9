/** Splits parser events by type, for the importer tests. */
import type { ImportEvent, ImportItem } from "../../src/import/records";

export function collect(events: Iterable<ImportEvent>) {
  const all = [...events];
  const items: ImportItem[] = all.flatMap((e) => (e.type === "item" ? [e.item] : []));
  const skipped = all.flatMap((e) => (e.type === "skipped" ? [e] : []));
  const errors = all.flatMap((e) => (e.type === "error" ? [e] : []));
  return { all, items, skipped, errors };
}

/** `import.meta.glob` results (path → text) as parser input, paths relative to `root`. */
export function filesUnder(glob: Record<string, string>, root: string) {
  return Object.entries(glob).map(([path, text]) => ({
    path: path.slice(path.indexOf(root) + root.length),
    text,
  }));
}
