/**
 * npm run eval -- [--generator provider:model] [--judge provider:model] [--answerer provider:model|keywords]
 *                 [--embedding openai:model|none] [--workspace demo|<folder>] [--json] [--out <file>]
 *                 [--skip-scenarios]
 *
 * Scores memories against known facts (EVAL.md). Starts a throwaway local stack (bench/lib/bench-stack.ts:
 * fresh database, fresh Durable Object state), ingests the workspace, waits until the embeddings queue has
 * indexed it, then one subject at a time: the first (full) generation, then the refresh batch and a forced
 * incremental refresh. Every LLM and embedding call goes through a recording proxy (drafts, for the
 * "dropped" share; embedding calls and tokens, per run and for the indexing). Without --generator it runs
 * on the fake LLM's reference policies, its embeddings (openai:fake-embedding) and the deterministic
 * keyword answerer, as CI does.
 *
 * The embedding model: with the fake LLM its embeddings, or none with `--embedding none` (keyword-only
 * search); with a real --generator `--embedding openai:<model>`, else EMBEDDING_MODEL from the environment
 * (or .dev.vars), else none. Its endpoint is EMBEDDING_BASE_URL, else OPENAI_BASE_URL, else OpenAI's;
 * EMBEDDING_DIMENSIONS is passed on. workers-ai models go through the AI binding, which the eval cannot
 * count, and are refused.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BENCH_SECRET, startBenchStack } from "../bench/lib/bench-stack";
import type { ApiItem } from "../fixtures/demo-workspace";
import { readDevVars } from "../scripts/lib/dev-secret";
import type { ModelRef } from "../src/domain/llm";
import { startFakeLlm } from "../test/support/node/fake-llm/server";
import { type Answerer, keywordAnswerer } from "./lib/answerer";
import type {
  ObservedPhase,
  ObservedStatement,
  ScenarioObservation,
  SubjectObservation,
} from "./lib/observation";
import { privateShingles } from "./lib/privacy";
import { buildReport, formatReport } from "./lib/report";
import {
  contradictionsFor,
  dismissalCandidate,
  restatedInDrafts,
  type ServedItem,
  stillStated,
  touched,
} from "./lib/scenarios";
import { scoreSubject } from "./lib/score";
import { llmAnswerer } from "./llm-answerer";
import { startRecordingProxy } from "./recording-proxy";
import { type FinishedRun, ServiceClient } from "./service-client";
import { demoEvalWorkspace, folderEvalWorkspace, workspaceItems, workspaceMembers } from "./workspace";

const FAKE = {
  generator: "anthropic:fake-generator",
  judge: "openai:fake-judge",
  embedding: "openai:fake-embedding",
};
/** How long the eval waits for the embeddings queue after an ingest: the fake's, a real model's. */
const INDEXING_TIMEOUT_MS = { fake: 60_000, real: 15 * 60_000 };

const { values } = parseArgs({
  options: {
    generator: { type: "string" },
    judge: { type: "string" },
    answerer: { type: "string" },
    embedding: { type: "string" },
    workspace: { type: "string", default: "demo" },
    json: { type: "boolean", default: false },
    out: { type: "string" },
    "skip-scenarios": { type: "boolean", default: false },
  },
});

const started = Date.now();
const fakeMode = values.generator === undefined || values.generator === "fake";
const generator = fakeMode ? FAKE.generator : modelRef("--generator", values.generator!);
const judge = values.judge ? modelRef("--judge", values.judge) : fakeMode ? FAKE.judge : generator;
const env = { ...readDevVars(), ...process.env } as Record<string, string | undefined>;
const providerSettings = {
  anthropic: { apiKey: env.ANTHROPIC_API_KEY, baseUrl: env.ANTHROPIC_BASE_URL },
  openai: { apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL },
};
const embedding = chooseEmbedding();
const log = (line: string) => console.error(`[eval] ${((Date.now() - started) / 1000).toFixed(1)} s ${line}`);

const fake = fakeMode ? await startFakeLlm() : null;
const proxy = await startRecordingProxy({
  anthropic: fake?.anthropicBaseUrl ?? providerSettings.anthropic.baseUrl ?? "https://api.anthropic.com",
  openai: fake?.openaiBaseUrl ?? providerSettings.openai.baseUrl ?? "https://api.openai.com/v1",
  embedding:
    fake?.openaiBaseUrl ??
    env.EMBEDDING_BASE_URL ??
    providerSettings.openai.baseUrl ??
    "https://api.openai.com/v1",
});
const embeddingVars: Record<string, string> = embedding
  ? {
      EMBEDDING_MODEL: embedding,
      EMBEDDING_BASE_URL: proxy.embeddingBaseUrl,
      ...(!fake && env.EMBEDDING_DIMENSIONS ? { EMBEDDING_DIMENSIONS: env.EMBEDDING_DIMENSIONS } : {}),
    }
  : {};
const keys = fake
  ? { ANTHROPIC_API_KEY: "fake-key", OPENAI_API_KEY: "fake-key" }
  : Object.fromEntries(
      [
        ["ANTHROPIC_API_KEY", providerSettings.anthropic.apiKey],
        ["OPENAI_API_KEY", providerSettings.openai.apiKey],
      ].filter((kv): kv is [string, string] => typeof kv[1] === "string" && kv[1] !== ""),
    );
let stack: Awaited<ReturnType<typeof startBenchStack>> | undefined;
let exitCode = 0;
try {
  const answerer = chooseAnswerer();
  const workspace =
    values.workspace === "demo" ? demoEvalWorkspace(new Date()) : folderEvalWorkspace(values.workspace!);
  log("starting the stack");
  stack = await startBenchStack("eval", {
    ...keys,
    ANTHROPIC_BASE_URL: proxy.anthropicBaseUrl,
    OPENAI_BASE_URL: proxy.openaiBaseUrl,
    GENERATOR_MODEL: generator,
    JUDGE_MODEL: judge,
    MIN_REFRESH_INTERVAL_MINUTES: "0",
    INGEST_DEBOUNCE_SECONDS: "3600",
    MAX_RUN_ATTEMPTS: "1",
    ...embeddingVars,
  });
  const service = new ServiceClient(stack.url, BENCH_SECRET, fake ? 60_000 : 15 * 60_000);
  const members = workspaceMembers(workspace);
  await service.registerMembers(members);
  log(`registered ${members.length} members`);
  const indexing = { calls: 0, inputTokens: 0, waitMs: 0 };
  /**
   * Waits for the embeddings queue to index what the last ingest changed, so every run sees the same
   * index; the queue's embedding calls count as the workspace's indexing, not as the next run's.
   */
  const indexed = async () => {
    const waitStarted = Date.now();
    await service.untilIndexed(members[0]!, fake ? INDEXING_TIMEOUT_MS.fake : INDEXING_TIMEOUT_MS.real);
    indexing.waitMs += Date.now() - waitStarted;
    const use = proxy.takeEmbeddings();
    indexing.calls += use.calls;
    indexing.inputTokens += use.inputTokens;
  };
  const ingest = async (userId: string, items: ApiItem[]) => {
    await service.ingest(userId, items);
    await indexed();
  };
  /** A finished run's cost with the embedding calls made since the last take (the run's own: see indexed). */
  const withEmbeddings = (run: FinishedRun): FinishedRun => ({
    ...run,
    cost: { ...run.cost, embeddings: proxy.takeEmbeddings() },
  });
  for (const [owner, items] of Object.entries(workspace.items)) await service.ingest(owner, items);
  await indexed();
  log(
    `ingested ${Object.values(workspace.items).flat().length} items` +
      (embedding ? `, indexed with ${indexing.calls} embedding calls` : ""),
  );

  const everything = workspaceItems(workspace);
  const observations: SubjectObservation[] = [];
  for (const { subject } of workspace.dataset.subjects) {
    if (subject.kind !== "user") throw new Error(`subject kind "${subject.kind}" is not supported yet`);
    proxy.takeDrafts();
    const firstRun = withEmbeddings(await service.firstRun(subject.id));
    const full: ObservedPhase = {
      statements: await service.statements(subject.id),
      run: firstRun.cost,
      drafts: proxy.takeDrafts(),
    };
    await ingest(subject.id, workspace.refresh[subject.id] ?? []);
    const refreshRun = withEmbeddings(await service.refreshRun(subject.id, firstRun.id));
    const refreshed: ObservedPhase = {
      statements: await service.statements(subject.id),
      run: refreshRun.cost,
      drafts: proxy.takeDrafts(),
    };
    const ids = new Set(
      [...(full.statements ?? []), ...(refreshed.statements ?? [])].flatMap((s) => s.citations),
    );
    const items: SubjectObservation["items"] = {};
    for (const id of ids) items[id] = await service.item(subject.id, id);
    const scenarios = !values["skip-scenarios"]
      ? await runScenarios(subject.id, refreshed.statements ?? [], refreshRun.id)
      : undefined;
    observations.push({ subject, full, refreshed, items, ...(scenarios ? { scenarios } : {}) });
    log(`${subject.id}: full ${firstRun.cost.status}, incremental ${refreshRun.cost.status}`);
  }

  /**
   * The freshness scenarios after the refresh (EVAL.md): newer items that contradict statements through a
   * reply or an @-mention of an item they cite, then one more refresh; then a dismissal, the dismissed
   * statement's item re-ingested (changed, same words), and one more refresh.
   */
  async function runScenarios(userId: string, statements: ObservedStatement[], lastRunId: string) {
    const served: Record<string, ServedItem | null> = {};
    const fetchCited = async (list: ObservedStatement[]) => {
      for (const id of new Set(list.flatMap((s) => s.citations))) {
        if (!(id in served)) served[id] = await service.fullItem(userId, id);
      }
    };
    await fetchCited(statements);
    const contradictions = contradictionsFor(userId, statements, served, new Date());
    proxy.takeDrafts();
    let contradictionRun: FinishedRun | null = null;
    let after = statements;
    if (contradictions.length > 0) {
      await ingest(
        userId,
        contradictions.map((c) => c.item),
      );
      contradictionRun = withEmbeddings(await service.refreshRun(userId, lastRunId));
      after = (await service.statements(userId)) ?? [];
    }
    await fetchCited(after);
    const pick = dismissalCandidate(
      userId,
      after,
      served,
      new Set(contradictions.map((c) => c.statement.text)),
    );
    let dismissed: ScenarioObservation["dismissed"] = null;
    let dismissalRun: FinishedRun | null = null;
    if (pick) {
      await service.dismiss(userId, pick.statement.id, "not true any more");
      await ingest(userId, [touched(pick.item, new Date().toISOString())]);
      proxy.takeDrafts();
      dismissalRun = withEmbeddings(await service.refreshRun(userId, contradictionRun?.id ?? lastRunId));
      const drafts = proxy.takeDrafts();
      const final = (await service.statements(userId)) ?? [];
      dismissed = {
        text: pick.statement.text,
        absentAfter: !final.some((s) => s.text === pick.statement.text),
        restatedInDrafts: restatedInDrafts(drafts, pick.statement.text),
      };
    }
    return {
      contradicted: contradictions.map((c) => ({
        text: c.statement.text,
        via: c.via,
        stillStated: stillStated(after, c),
      })),
      contradictionRun: contradictionRun?.cost ?? null,
      dismissed,
      dismissalRun: dismissalRun?.cost ?? null,
    } satisfies ScenarioObservation;
  }

  const subjects = [];
  for (const [i, expected] of workspace.dataset.subjects.entries()) {
    const hidden = privateShingles(expected.subject.id, everything);
    subjects.push(await scoreSubject(expected, observations[i]!, hidden, answerer));
  }
  const report = buildReport({
    dataset: workspace.dataset.name,
    models: { generator, judge, answerer: answerer.name, embedding },
    startedAt: new Date(started).toISOString(),
    wallMs: Date.now() - started,
    subjects,
    answererUsage: answerer.usage(),
    indexing,
  });
  const json = JSON.stringify(report, null, 2);
  if (values.out) writeFileSync(values.out, `${json}\n`);
  console.log(values.json ? json : formatReport(report));
  const failedRuns = subjects.filter(
    (s) =>
      s.cost.full?.status !== "succeeded" ||
      s.cost.incremental?.status !== "succeeded" ||
      [s.scenarios?.cost.contradiction, s.scenarios?.cost.dismissal].some(
        (c) => c && c.status !== "succeeded",
      ),
  );
  if (fakeMode && failedRuns.length > 0) {
    log(`runs that did not succeed with the fake LLM: ${failedRuns.map((s) => s.subject.id).join(", ")}`);
    exitCode = 1;
  }
} catch (err) {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err));
  exitCode = 1;
} finally {
  await stack?.close();
  await proxy.close();
  await fake?.close();
}
process.exit(exitCode);

function chooseAnswerer(): Answerer {
  const choice = values.answerer ?? (fakeMode ? "keywords" : generator);
  if (choice === "keywords") return keywordAnswerer();
  return llmAnswerer(parseModelRef("--answerer", choice), providerSettings);
}

/** The service's embedding model ("provider:model"), or null for keyword-only search (see the header). */
function chooseEmbedding(): string | null {
  if (fakeMode) {
    if (values.embedding === undefined || values.embedding === "fake") return FAKE.embedding;
    if (values.embedding === "none") return null;
    throw new Error(
      `--embedding with the fake LLM is "fake" or "none", not "${values.embedding}" (a real model needs --generator)`,
    );
  }
  const choice = values.embedding ?? (env.EMBEDDING_MODEL || "none");
  if (choice === "none") return null;
  if (!/^openai:.+$/.test(choice)) {
    throw new Error(`--embedding (or EMBEDDING_MODEL) must be openai:<model> or "none", not "${choice}"`);
  }
  return choice;
}

/** Checks a `provider:model` flag and returns it unchanged (the worker's setting). */
function modelRef(flag: string, value: string): string {
  parseModelRef(flag, value);
  return value;
}

function parseModelRef(flag: string, value: string): ModelRef {
  const m = /^(anthropic|openai):(.+)$/.exec(value);
  if (!m) throw new Error(`${flag} must be anthropic:<model> or openai:<model> (or "fake"), not "${value}"`);
  return { provider: m[1] as ModelRef["provider"], model: m[2]! };
}
