/**
 * Retrieval quality of search's three modes on a labelled dataset (bench/lib/retrieval-dataset.ts), through
 * the worker (`wrangler dev`, the embeddings queue and its consumer, GET /items?mode=):
 *   npm run bench:retrieval
 * One user's workspace: the demo workspace's 419 items (distractors) plus the labelled items. After the
 * embeddings queue has indexed every item (GET /admin/embeddings pending 0), every query runs in every mode
 * with limit=10: recall@10 and MRR@10 per query kind.
 *
 * Embedders: always the fake LLM's deterministic hashed-feature embeddings; and, when EMBEDDING_MODEL is
 * set (with EMBEDDING_BASE_URL, OPENAI_API_KEY, EMBEDDING_DIMENSIONS as needed), that model too. E.g. the
 * word-vector server: node ../shared/tools/word-vector-embeddings.mjs 8812, then
 *   EMBEDDING_MODEL=openai:wink-sg-100d EMBEDDING_BASE_URL=http://127.0.0.1:8812/v1 npm run bench:retrieval
 * BENCH_PORT (default 8799) for wrangler dev; BENCH_DATABASE_URL for PostgreSQL instead of PGlite.
 */
import { writeFileSync } from "node:fs";
import { DEMO_USER_IDS, demoWorkspace } from "../fixtures/demo-workspace";
import { ROOT } from "../scripts/lib/dev-secret";
import { signDevToken } from "../scripts/lib/token";
import { startFakeLlm } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, backend, startBenchStack } from "./lib/bench-stack";
import {
  LABELLED_ITEMS,
  LABELLED_QUERIES,
  type LabelledQuery,
  QUERY_KINDS,
  type QueryKind,
} from "./lib/retrieval-dataset";

const MODES = ["keyword", "semantic", "hybrid"] as const;
type Mode = (typeof MODES)[number];
const K = 10;
const INDEX_TIMEOUT_MS = Number(process.env.INDEX_TIMEOUT_MS ?? 600_000);
const USER = "bench-retrieval";
const now = new Date();

interface Scores {
  recall: number;
  mrr: number;
  queries: number;
}
type Table = Record<QueryKind | "all", Record<Mode, Scores>>;

const fake = await startFakeLlm();
const embedders: { name: string; vars: Record<string, string> }[] = [
  {
    name: "fake (hashed word features)",
    vars: { EMBEDDING_MODEL: "openai:fake-embedding", EMBEDDING_BASE_URL: `${fake.url}/openai/v1` },
  },
];
if (process.env.EMBEDDING_MODEL) {
  const vars: Record<string, string> = { EMBEDDING_MODEL: process.env.EMBEDDING_MODEL };
  for (const name of ["EMBEDDING_BASE_URL", "EMBEDDING_DIMENSIONS", "OPENAI_API_KEY"]) {
    const value = process.env[name];
    if (value) vars[name] = value;
  }
  embedders.push({ name: process.env.EMBEDDING_MODEL, vars });
}

const results: { embedder: string; items: number; indexMs: number; table: Table }[] = [];
try {
  for (const [i, embedder] of embedders.entries()) {
    const stack = await startBenchStack(`retrieval-${i}`, embedder.vars);
    try {
      const token = signDevToken(BENCH_SECRET, USER);
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${stack.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
        return JSON.parse(text) as unknown;
      };
      const items = corpus();
      const t0 = performance.now();
      for (let at = 0; at < items.length; at += 200) {
        await api("POST", "/items", { items: items.slice(at, at + 200) });
      }
      for (;;) {
        const status = (await api("GET", "/admin/embeddings")) as { pending: number; items: number };
        if (status.pending === 0) break;
        if (performance.now() - t0 > INDEX_TIMEOUT_MS) throw new Error(`still ${status.pending} pending`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const indexMs = performance.now() - t0;
      console.error(
        `[bench] ${embedder.name}: ${items.length} items indexed in ${(indexMs / 1000).toFixed(1)} s`,
      );

      const perQuery: { query: LabelledQuery; mode: Mode; recall: number; rr: number }[] = [];
      for (const query of LABELLED_QUERIES) {
        for (const mode of MODES) {
          const params = new URLSearchParams({ q: query.q, mode, limit: String(K) });
          const page = (await api("GET", `/items?${params}`)) as { items: { externalId: string }[] };
          const found = page.items.map((h) => h.externalId);
          const hits = query.relevant.filter((id) => found.includes(id)).length;
          const first = found.findIndex((id) => query.relevant.includes(id));
          perQuery.push({
            query,
            mode,
            recall: hits / query.relevant.length,
            rr: first < 0 ? 0 : 1 / (first + 1),
          });
        }
      }
      results.push({ embedder: embedder.name, items: items.length, indexMs, table: tabulate(perQuery) });
    } finally {
      await stack.close();
    }
  }
} finally {
  await fake.close();
}

writeFileSync(
  `${ROOT}bench/results/retrieval.json`,
  JSON.stringify({ at: now.toISOString(), backend: backend(), k: K, results }, null, 2),
);
for (const r of results) {
  console.log(
    `\n### ${r.embedder} (${r.items} items, ${backend()}; indexed in ${(r.indexMs / 1000).toFixed(1)} s)\n`,
  );
  console.log(
    "| query kind | queries | keyword recall@10 | semantic recall@10 | hybrid recall@10 | keyword MRR@10 | semantic MRR@10 | hybrid MRR@10 |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const kind of [...QUERY_KINDS, "all"] as const) {
    const row = r.table[kind];
    const f = (x: number) => x.toFixed(2);
    console.log(
      `| ${kind} | ${row.keyword.queries} | ${MODES.map((m) => f(row[m].recall)).join(" | ")} | ${MODES.map((m) => f(row[m].mrr)).join(" | ")} |`,
    );
  }
}

/** The demo workspace's items of every user as one user's (shares dropped, duplicates once), then ours. */
function corpus() {
  const ws = demoWorkspace(now);
  const seen = new Set<string>();
  const items: Record<string, unknown>[] = [];
  for (const key of DEMO_USER_IDS) {
    for (const item of ws.itemsByOwner[key]) {
      const id = JSON.stringify([item.source, item.externalId]);
      if (seen.has(id)) continue;
      seen.add(id);
      const { sharedWith: _shared, ...own } = item;
      items.push(own);
    }
  }
  for (const item of LABELLED_ITEMS) {
    items.push({ ...item, source: "bench", occurredAt: new Date(now.getTime() - 86_400_000).toISOString() });
  }
  return items;
}

function tabulate(perQuery: { query: LabelledQuery; mode: Mode; recall: number; rr: number }[]): Table {
  const table = {} as Table;
  for (const kind of [...QUERY_KINDS, "all"] as const) {
    table[kind] = {} as Record<Mode, Scores>;
    for (const mode of MODES) {
      const rows = perQuery.filter((p) => p.mode === mode && (kind === "all" || p.query.kind === kind));
      const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
      table[kind][mode] = {
        recall: mean(rows.map((r) => r.recall)),
        mrr: mean(rows.map((r) => r.rr)),
        queries: rows.length,
      };
    }
  }
  return table;
}
