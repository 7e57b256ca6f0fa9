/**
 * Generation cost through `wrangler dev`, with the fake LLM's reference policies as provider:
 *   npm run bench:generation     (BENCH_DATABASE_URL=postgres://... for the machine's PostgreSQL)
 * Loads the demo workspace, runs a first (full) generation for one user, ingests new items, forces an
 * incremental refresh, and reports each run's turns, tool calls, tokens and wall time from the runs
 * ledger (GET /memory/runs), with the refresh-to-full ratios.
 */
import { DEMO_USER_IDS, demoRefreshBatch, demoWorkspace } from "../fixtures/demo-workspace";
import { signDevToken } from "../scripts/lib/token";
import { postItems, registerMembers } from "../scripts/load-demo";
import { startFakeLlm, workerVarsFor } from "../test/support/node/fake-llm/server";
import { BENCH_SECRET, backend, startBenchStack } from "./lib/bench-stack";

const SUBJECT = process.env.SUBJECT ?? "ada";

interface Run {
  id: string;
  status: string;
  startedAt: string | null;
  finishedAt: string | null;
  turns: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  usage: Record<string, { inputTokens: number; outputTokens: number; calls: number }>;
}

const fake = await startFakeLlm();
const stack = await startBenchStack("generation", {
  ...workerVarsFor(fake),
  MIN_REFRESH_INTERVAL_MINUTES: "0",
  INGEST_DEBOUNCE_SECONDS: "3600",
});
const auth = { authorization: `Bearer ${signDevToken(BENCH_SECRET, SUBJECT)}` };

try {
  const now = new Date();
  const ws = demoWorkspace(now);
  // Items are shared among the demo users: they must be members of the workspace first.
  await registerMembers({ url: stack.url, secret: BENCH_SECRET, userIds: DEMO_USER_IDS });
  for (const key of DEMO_USER_IDS) {
    await postItems({ url: stack.url, secret: BENCH_SECRET, userId: key, items: ws.itemsByOwner[key] });
  }
  const full = await untilNewRun(null, () => fetch(`${stack.url}/memory?wait=30`, { headers: auth }));
  const batch = demoRefreshBatch(now, SUBJECT);
  await postItems({ url: stack.url, secret: BENCH_SECRET, userId: SUBJECT, items: batch });
  const refresh = await untilNewRun(full.id, () =>
    fetch(`${stack.url}/memory/refresh`, { method: "POST", headers: auth }),
  );
  const cost = (r: Run) => ({
    turns: r.turns,
    toolCalls: r.toolCalls,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    usage: r.usage,
    wallMs: new Date(r.finishedAt!).getTime() - new Date(r.startedAt!).getTime(),
  });
  const [a, b] = [cost(full), cost(refresh)];
  const ratio = (x: number, y: number) => Math.round((x / y) * 1000) / 1000;
  console.log(
    JSON.stringify(
      {
        bench: "generation",
        backend: backend(),
        subject: SUBJECT,
        workspaceItems: ws.itemsByOwner[SUBJECT as "ada"]?.length,
        newItems: batch.length,
        full: a,
        incremental: b,
        incrementalToFull: {
          inputTokens: ratio(b.inputTokens, a.inputTokens),
          toolCalls: ratio(b.toolCalls, a.toolCalls),
          wallMs: ratio(b.wallMs, a.wallMs),
        },
      },
      null,
      2,
    ),
  );
} finally {
  await stack.close();
  await fake.close();
}

async function runs(): Promise<Run[]> {
  const res = await fetch(`${stack.url}/memory/runs?limit=100`, { headers: auth });
  return ((await res.json()) as { runs: Run[] }).runs;
}

/** Triggers a run and waits for a finished run other than `previousId`; fails loudly unless it succeeded. */
async function untilNewRun(previousId: string | null, trigger: () => Promise<Response>): Promise<Run> {
  await (await trigger()).arrayBuffer();
  const deadline = Date.now() + 120_000;
  for (;;) {
    const run = (await runs()).find((r) => r.id !== previousId && r.finishedAt !== null);
    if (run) {
      if (run.status !== "succeeded") throw new Error(`run did not succeed: ${JSON.stringify(run)}`);
      return run;
    }
    if (Date.now() > deadline) throw new Error("timed out waiting for a run");
    await new Promise((r) => setTimeout(r, 250));
  }
}
