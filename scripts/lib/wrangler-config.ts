/**
 * The resources wrangler.toml names, read from the file itself so the setup script never repeats a name: the
 * worker's name, every queue (producers, consumers and their dead-letter queues) and the KV bindings. A reader
 * of the small part of TOML this file uses (`[[table]]` headers, `key = "string"` and numbers, comments), not a
 * general TOML parser: a line it does not understand inside a table it reads is an error, not a guess.
 */

export interface WranglerResources {
  workerName: string;
  /** Every queue name, each once: the queues first, then their dead-letter queues. */
  queues: string[];
  deadLetterQueues: string[];
  kvNamespaces: { binding: string; id?: string }[];
}

type Table = Record<string, string>;

/** The `[[name]]` array tables of the file, and the top-level keys (under "" ). */
function readTables(toml: string): { top: Table; arrays: Map<string, Table[]> } {
  const top: Table = {};
  const arrays = new Map<string, Table[]>();
  let current: Table | null = top;
  for (const [index, raw] of toml.split("\n").entries()) {
    const line = raw.replace(/\s+#.*$/, "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const arrayHeader = /^\[\[([\w.]+)\]\]$/.exec(line);
    if (arrayHeader) {
      const table: Table = {};
      const name = arrayHeader[1]!;
      arrays.set(name, [...(arrays.get(name) ?? []), table]);
      current = table;
      continue;
    }
    if (/^\[[\w.]+\]$/.test(line)) {
      current = null; // A plain table ([vars], [assets], …): not needed here.
      continue;
    }
    if (current === null) continue;
    const pair = /^([\w-]+)\s*=\s*(?:"([^"]*)"|(-?\d+)|(true|false)|(\[.*\]))$/.exec(line);
    if (!pair) throw new Error(`wrangler.toml line ${index + 1}: cannot read ${JSON.stringify(raw)}`);
    current[pair[1]!] = pair[2] ?? pair[3] ?? pair[4] ?? pair[5] ?? "";
  }
  return { top, arrays };
}

export function readWranglerResources(toml: string): WranglerResources {
  const { top, arrays } = readTables(toml);
  const workerName = top.name;
  if (!workerName) throw new Error("wrangler.toml has no top-level name");
  const producers = arrays.get("queues.producers") ?? [];
  const consumers = arrays.get("queues.consumers") ?? [];
  const deadLetterQueues = unique(
    consumers.flatMap((c) => (c.dead_letter_queue ? [c.dead_letter_queue] : [])),
  );
  const queues = unique([...producers, ...consumers].flatMap((t) => (t.queue ? [t.queue] : []))).filter(
    (q) => !deadLetterQueues.includes(q),
  );
  const kvNamespaces = (arrays.get("kv_namespaces") ?? []).map((t) => {
    if (!t.binding) throw new Error("wrangler.toml: a [[kv_namespaces]] entry has no binding");
    return t.id ? { binding: t.binding, id: t.id } : { binding: t.binding };
  });
  return { workerName, queues, deadLetterQueues, kvNamespaces };
}

const unique = (values: string[]) => [...new Set(values)];
