/**
 * Where the time of one read goes, through `wrangler dev` at 1 connection (no queueing):
 *   npm run bench:read-path     (BENCH_DATABASE_URL=postgres://... for the machine's PostgreSQL)
 * An unknown route (routing and error mapping, no database), GET /health (one `select 1`), GET /memory
 * (auth + the one indexed read query) and GET /items/:id of a missing id (auth + one query).
 */
import { DEMO_USER_IDS, demoWorkspace } from "../fixtures/demo-workspace";
import { signDevToken } from "../scripts/lib/token";
import { postItems, registerMembers } from "../scripts/load-demo";
import { startFakeLlm, workerVarsFor } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, backend, startBenchStack } from "./lib/bench-stack";
import { runLoad } from "./lib/load";
import { summarize } from "./lib/stats";

const REQUESTS = Number(process.env.REQUESTS ?? 500);

const fake = await startFakeLlm();
const stack = await startBenchStack("read-path", workerVarsFor(fake));
const auth = { authorization: `Bearer ${signDevToken(BENCH_SECRET, "ada")}` };
try {
  // Ada's items are shared with other demo users: they must be members of the workspace first.
  await registerMembers({ url: stack.url, secret: BENCH_SECRET, userIds: DEMO_USER_IDS });
  await postItems({
    url: stack.url,
    secret: BENCH_SECRET,
    userId: "ada",
    items: demoWorkspace(new Date()).itemsByOwner.ada,
  });
  const first = await fetch(`${stack.url}/memory?wait=30`, { headers: auth });
  await first.arrayBuffer();
  if (first.status !== 200) throw new Error(`no memory to read: ${first.status}`);

  const paths: [string, string, Record<string, string>][] = [
    ["unknown route (no database)", "/nope", {}],
    ["GET /health (select 1)", "/health", {}],
    ["GET /memory", "/memory", auth],
    ["GET /items/:id (missing)", "/items/00000000-0000-0000-0000-000000000000", auth],
  ];
  const results: Record<string, unknown> = {};
  for (const [name, path, headers] of paths) {
    const request = () => fetch(`${stack.url}${path}`, { headers });
    await runLoad({ total: 100, concurrency: 1, request });
    const run = await runLoad({ total: REQUESTS, concurrency: 1, request });
    results[name] = { ...summarize(run.latenciesMs), statuses: run.statuses };
  }
  console.log(JSON.stringify({ bench: "read-path", backend: backend(), concurrency: 1, results }, null, 2));
} finally {
  await stack.close();
  await fake.close();
}
