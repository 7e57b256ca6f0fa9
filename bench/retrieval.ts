/**
 * Retrieval quality of search's three modes on two labelled sets, through the worker (`wrangler dev`, the
 * embeddings queue and its consumer, GET /items?mode=), beside a textbook BM25 computed here over the same
 * items (bench/lib/bm25-reference.ts):
 *   npm run bench:retrieval
 * - labelled (bench/lib/retrieval-dataset.ts): one user's workspace, the demo workspace's 419 items
 *   (distractors) plus the labelled items; queries of four kinds (own words, paraphrase, variant, question).
 * - conversation (bench/lib/conversation-dataset.ts, generated): 2,400 chat turns over eight months under
 *   another user, questions naming the person whose fact they ask for, evidence mostly far older than the
 *   newest turns.
 * After the embeddings queue has indexed every item (GET /admin/embeddings pending 0), every query runs in
 * every mode with limit=10: recall@5, recall@10 and nDCG@10 per query kind.
 *
 * Embedders: always the fake LLM's deterministic hashed-feature embeddings; and, when EMBEDDING_MODEL is
 * set (with EMBEDDING_BASE_URL, OPENAI_API_KEY, EMBEDDING_DIMENSIONS as needed), that model too. E.g. the
 * word-vector server: node ../shared/tools/word-vector-embeddings.mjs 8812, then
 *   EMBEDDING_MODEL=openai:wink-sg-100d EMBEDDING_BASE_URL=http://127.0.0.1:8812/v1 npm run bench:retrieval
 * BENCH_PORT (default 8799) for wrangler dev; BENCH_DATABASE_URL for PostgreSQL instead of PGlite;
 * BENCH_SKIP_FAKE=1 skips the fake embedder's run when EMBEDDING_MODEL is set.
 */
import { writeFileSync } from "node:fs";
import { DEMO_USER_IDS, demoWorkspace } from "../fixtures/demo-workspace";
import { ROOT } from "../scripts/lib/dev-secret";
import { signDevToken } from "../scripts/lib/token";
import { startFakeLlm } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, backend, startBenchStack } from "./lib/bench-stack";
import { Bm25Reference, type ReferenceDocument } from "./lib/bm25-reference";
import { conversationDataset } from "./lib/conversation-dataset";
import { LABELLED_ITEMS, LABELLED_QUERIES, QUERY_KINDS } from "./lib/retrieval-dataset";

const MODES = ["bm25", "keyword", "hybrid", "semantic"] as const;
type Mode = (typeof MODES)[number];
const METRICS = ["recall@5", "recall@10", "nDCG@10"] as const;
type Metric = (typeof METRICS)[number];
const K = 10;
const INDEX_TIMEOUT_MS = Number(process.env.INDEX_TIMEOUT_MS ?? 900_000);
const now = new Date();

interface Query {
  kind: string;
  q: string;
  relevant: string[];
}
interface Collection {
  name: string;
  user: string;
  items: (ReferenceDocument & Record<string, unknown>)[];
  queries: Query[];
  kinds: readonly string[];
}
type Table = Record<string, Record<Mode, Record<Metric, number>> & { queries: number }>;

const conversation = conversationDataset(now);
const collections: Collection[] = [
  {
    name: "labelled",
    user: "bench-retrieval",
    items: corpus(),
    queries: LABELLED_QUERIES,
    kinds: QUERY_KINDS,
  },
  {
    name: "conversation",
    user: "bench-conversation",
    items: conversation.items.map((t) => ({ ...t, id: t.externalId })),
    queries: conversation.queries,
    kinds: ["conversation"],
  },
];

const fake = await startFakeLlm();
const embedders: { name: string; vars: Record<string, string> }[] = [];
if (!(process.env.EMBEDDING_MODEL && process.env.BENCH_SKIP_FAKE === "1")) {
  embedders.push({
    name: "fake (hashed word features)",
    vars: { EMBEDDING_MODEL: "openai:fake-embedding", EMBEDDING_BASE_URL: `${fake.url}/openai/v1` },
  });
}
if (process.env.EMBEDDING_MODEL) {
  const vars: Record<string, string> = { EMBEDDING_MODEL: process.env.EMBEDDING_MODEL };
  for (const name of ["EMBEDDING_BASE_URL", "EMBEDDING_DIMENSIONS", "OPENAI_API_KEY"]) {
    const value = process.env[name];
    if (value) vars[name] = value;
  }
  embedders.push({ name: process.env.EMBEDDING_MODEL, vars });
}

const results: { embedder: string; collection: string; items: number; indexMs: number; table: Table }[] = [];
/** Every query's answer in every mode, for reading which queries a mode loses (bench/results/retrieval-answers.json). */
const answers: Record<string, unknown>[] = [];
try {
  for (const [i, embedder] of embedders.entries()) {
    const stack = await startBenchStack(`retrieval-${i}`, embedder.vars);
    try {
      const api = async (user: string, method: string, path: string, body?: unknown) => {
        const res = await fetch(`${stack.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${signDevToken(BENCH_SECRET, user)}`,
            "content-type": "application/json",
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
        return JSON.parse(text) as unknown;
      };
      const t0 = performance.now();
      for (const c of collections) {
        const payload = c.items.map(({ id: _id, ...item }) => item);
        for (let at = 0; at < payload.length; at += 200) {
          await api(c.user, "POST", "/items", { items: payload.slice(at, at + 200) });
        }
      }
      for (;;) {
        const status = (await api(collections[0]!.user, "GET", "/admin/embeddings")) as { pending: number };
        if (status.pending === 0) break;
        if (performance.now() - t0 > INDEX_TIMEOUT_MS) throw new Error(`still ${status.pending} pending`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const indexMs = performance.now() - t0;
      const total = collections.reduce((n, c) => n + c.items.length, 0);
      console.error(`[bench] ${embedder.name}: ${total} items indexed in ${(indexMs / 1000).toFixed(1)} s`);

      for (const c of collections) {
        const reference = new Bm25Reference(c.items);
        const perQuery: { query: Query; mode: Mode; scores: Record<Metric, number>; found: string[] }[] = [];
        for (const query of c.queries) {
          const bm25 = reference.search(query.q, K);
          perQuery.push({ query, mode: "bm25", scores: score(bm25, query.relevant), found: bm25 });
          for (const mode of MODES.filter((m) => m !== "bm25")) {
            const params = new URLSearchParams({ q: query.q, mode, limit: String(K) });
            const page = (await api(c.user, "GET", `/items?${params}`)) as {
              items: { externalId: string }[];
            };
            const found = page.items.map((h) => h.externalId);
            perQuery.push({ query, mode, scores: score(found, query.relevant), found });
          }
        }
        results.push({
          embedder: embedder.name,
          collection: c.name,
          items: c.items.length,
          indexMs,
          table: tabulate(c.kinds, perQuery),
        });
        answers.push(
          ...perQuery.map((p) => ({
            collection: c.name,
            embedder: embedder.name,
            ...p.query,
            mode: p.mode,
            found: p.found,
          })),
        );
      }
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
writeFileSync(`${ROOT}bench/results/retrieval-answers.json`, JSON.stringify(answers, null, 1));
const f = (x: number) => x.toFixed(2);
for (const r of results) {
  console.log(
    `\n### ${r.collection} set, ${r.embedder} (${r.items} items, ${backend()}; indexed in ${(r.indexMs / 1000).toFixed(1)} s)\n`,
  );
  console.log(
    `| query kind | queries | ${METRICS.map((m) => MODES.map((mode) => `${mode} ${m}`).join(" | ")).join(" | ")} |`,
  );
  console.log(`|---|---|${METRICS.map(() => MODES.map(() => "---").join("|")).join("|")}|`);
  for (const [kind, row] of Object.entries(r.table)) {
    const cells = METRICS.map((m) => MODES.map((mode) => f(row[mode][m])).join(" | ")).join(" | ");
    console.log(`| ${kind} | ${row.queries} | ${cells} |`);
  }
  // Fusion's goal: hybrid recall@10 at most 0.03 under the better channel on every kind.
  for (const [kind, row] of Object.entries(r.table)) {
    const best = Math.max(row.keyword["recall@10"], row.semantic["recall@10"]);
    const margin = row.hybrid["recall@10"] - best;
    console.log(
      `${kind}: hybrid recall@10 ${f(row.hybrid["recall@10"])}, better channel ${f(best)} (${margin >= -0.03 ? "within" : "NOT within"} 0.03)`,
    );
  }
}

/** recall@5, recall@10 and nDCG@10 (binary relevance) of one ranked answer. */
function score(found: string[], relevant: string[]): Record<Metric, number> {
  const recall = (k: number) =>
    relevant.filter((id) => found.slice(0, k).includes(id)).length / relevant.length;
  const dcg = found
    .slice(0, K)
    .reduce((sum, id, i) => sum + (relevant.includes(id) ? 1 / Math.log2(i + 2) : 0), 0);
  let ideal = 0;
  for (let i = 0; i < Math.min(K, relevant.length); i++) ideal += 1 / Math.log2(i + 2);
  return { "recall@5": recall(5), "recall@10": recall(10), "nDCG@10": ideal === 0 ? 0 : dcg / ideal };
}

/** The demo workspace's items of every user as one user's (shares dropped, duplicates once), then ours. */
function corpus(): Collection["items"] {
  const ws = demoWorkspace(now);
  const seen = new Set<string>();
  const items: Collection["items"] = [];
  for (const key of DEMO_USER_IDS) {
    for (const item of ws.itemsByOwner[key]) {
      const id = JSON.stringify([item.source, item.externalId]);
      if (seen.has(id)) continue;
      seen.add(id);
      const { sharedWith: _shared, ...own } = item;
      items.push({ ...own, id: own.externalId });
    }
  }
  for (const item of LABELLED_ITEMS) {
    const occurredAt = new Date(now.getTime() - 86_400_000).toISOString();
    items.push({ ...item, id: item.externalId, source: "bench", occurredAt });
  }
  return items;
}

function tabulate(
  kinds: readonly string[],
  perQuery: { query: Query; mode: Mode; scores: Record<Metric, number> }[],
): Table {
  const table: Table = {};
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  for (const kind of kinds.length > 1 ? [...kinds, "all"] : kinds) {
    const row = { queries: 0 } as Table[string];
    for (const mode of MODES) {
      const rows = perQuery.filter((p) => p.mode === mode && (kind === "all" || p.query.kind === kind));
      row.queries = rows.length;
      row[mode] = Object.fromEntries(METRICS.map((m) => [m, mean(rows.map((r) => r.scores[m]))])) as Record<
        Metric,
        number
      >;
    }
    table[kind] = row;
  }
  return table;
}
