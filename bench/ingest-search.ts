/**
 * Ingest throughput and search latency through `wrangler dev`.
 *   npm run bench:ingest-search            (embedded PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:ingest-search
 * Ingests every demo user's batch (≈80-120 items each) under TENANTS fresh tenants, then one 500-item
 * batch, re-posts it (all must be unchanged), and times GET /items searches whose best hit is known.
 */
import { type ApiItem, DEMO_USER_IDS, demoExpectedFacts, demoWorkspace } from "../fixtures/demo-workspace";
import { signDevToken } from "../scripts/lib/token";
import { postItems, registerMembers } from "../scripts/load-demo";
import { BENCH_SECRET, backend, startBenchStack } from "./lib/bench-stack";
import { runLoad } from "./lib/load";
import { summarize } from "./lib/stats";

const TENANTS = Number(process.env.TENANTS ?? 4);
const SEARCHES = Number(process.env.SEARCHES ?? 1000);
const now = new Date();

const stack = await startBenchStack("ingest-search");
try {
  // Ingest: each tenant gets the five demo users' workspaces under fresh user ids.
  let items = 0;
  const t0 = performance.now();
  for (let t = 0; t < TENANTS; t++) {
    const userIds = Object.fromEntries(DEMO_USER_IDS.map((k) => [k, `${k}-t${t}`]));
    const ws = demoWorkspace(now, { userIds });
    // The users share with each other: they must be members of the workspace first.
    await registerMembers({ url: stack.url, secret: BENCH_SECRET, userIds: Object.values(userIds) });
    for (const key of DEMO_USER_IDS) {
      const batch = ws.itemsByOwner[key];
      await postItems({ url: stack.url, secret: BENCH_SECRET, userId: userIds[key] as string, items: batch });
      items += batch.length;
    }
  }
  const ingestMs = performance.now() - t0;

  // One full 500-item batch, then the same batch again.
  const big = fiveHundred(now);
  const t1 = performance.now();
  const first = await postItems({ url: stack.url, secret: BENCH_SECRET, userId: "big-batch", items: big });
  const bigMs = performance.now() - t1;
  const t2 = performance.now();
  const again = await postItems({ url: stack.url, secret: BENCH_SECRET, userId: "big-batch", items: big });
  const againMs = performance.now() - t2;
  const unchanged = again.items.filter((i) => i.status === "unchanged").length;

  // Search: queries with a known best hit, as the tenant-0 users.
  const facts = demoExpectedFacts(now);
  const queries = DEMO_USER_IDS.flatMap((k) => facts[k].searches.map((s) => ({ user: `${k}-t0`, ...s })));
  const tokens = new Map(queries.map((q) => [q.user, signDevToken(BENCH_SECRET, q.user)]));
  let rightFirst = 0;
  for (const q of queries) {
    const res = await fetch(`${stack.url}/items?q=${encodeURIComponent(q.query)}&limit=5`, {
      headers: { authorization: `Bearer ${tokens.get(q.user)}` },
    });
    const body = (await res.json()) as { items: { externalId: string; source: string }[] };
    if (body.items[0]?.externalId === q.externalId && body.items[0]?.source === q.source) rightFirst++;
  }
  const search = async (concurrency: number) =>
    runLoad({
      total: SEARCHES,
      concurrency,
      request: (i) => {
        const q = queries[i % queries.length]!;
        return fetch(`${stack.url}/items?q=${encodeURIComponent(q.query)}&limit=10`, {
          headers: { authorization: `Bearer ${tokens.get(q.user)}` },
        });
      },
    });
  await search(4); // warm-up
  const seq = await search(1);
  const conc = await search(16);

  console.log(
    JSON.stringify(
      {
        bench: "ingest-search",
        backend: backend(),
        ingest: { items, ms: Math.round(ingestMs), itemsPerSecond: Math.round((items / ingestMs) * 1000) },
        batch500: {
          created: first.items.filter((i) => i.status === "created").length,
          ms: Math.round(bigMs),
          itemsPerSecond: Math.round((500 / bigMs) * 1000),
          reingestMs: Math.round(againMs),
          reingestUnchanged: unchanged,
        },
        searchRanking: { queries: queries.length, rightFirst },
        searchLatencyMs: {
          concurrency1: summarize(seq.latenciesMs),
          concurrency16: summarize(conc.latenciesMs),
        },
        statuses: { ...seq.statuses, ...conc.statuses },
      },
      null,
      2,
    ),
  );
} finally {
  await stack.close();
}

/** 500 realistic items for one owner: the demo items of all five users, re-keyed, cycled to 500. */
function fiveHundred(anchor: Date): ApiItem[] {
  const ws = demoWorkspace(anchor);
  const all = DEMO_USER_IDS.flatMap((k) => ws.itemsByOwner[k]);
  return Array.from({ length: 500 }, (_, i) => {
    const item = all[i % all.length]!;
    return {
      ...item,
      externalId: `${i}:${item.externalId}`,
      links: undefined,
      sharedWith: undefined,
    };
  });
}
