/** The eval report: a terminal table (quality per subject, then cost full vs incremental) and the JSON form. */
import type { EmbeddingUse } from "./observation";
import {
  type CostTotal,
  costTotal,
  type Ratio,
  rate,
  type SubjectScores,
  type Totals,
  totals,
} from "./score";

export interface EvalReport {
  dataset: string;
  /** `embedding`: the service's embedding model, null when it had none (keyword-only search). */
  models: { generator: string; judge: string; answerer: string; embedding: string | null };
  startedAt: string;
  wallMs: number;
  subjects: SubjectScores[];
  totals: Totals;
  /** Tokens the answerer spent scoring (not part of the service's cost). */
  answererUsage: Record<string, { inputTokens: number; outputTokens: number; calls: number }>;
  /**
   * The workspace's indexing: the embeddings queue's calls for every ingest of the eval (not a run's
   * cost), and how long the eval waited for it before the runs.
   */
  indexing: EmbeddingUse & { waitMs: number };
}

export function buildReport(parts: Omit<EvalReport, "totals">): EvalReport {
  return { ...parts, totals: totals(parts.subjects) };
}

const pct = (r: Ratio): string => {
  const v = rate(r);
  return v === null ? "n/a" : `${(v * 100).toFixed(1)}% (${r.hit}/${r.total})`;
};

const QUALITY_COLUMNS = [
  "subject",
  "fact recall",
  "citation precision",
  "dropped",
  "questions",
  "superseded gone",
  "new facts",
  "leaks",
] as const;

const COST_COLUMNS = [
  "subject",
  "run",
  "turns",
  "tool calls",
  "input tok",
  "output tok",
  "wall ms",
  "embed calls",
  "embed tok",
] as const;

const SCENARIO_COLUMNS = [
  "subject",
  "contradicted gone",
  "dismissed gone",
  "restated by generator",
  "input tok (2 runs)",
  "embed calls (2 runs)",
] as const;

export function formatReport(report: EvalReport): string {
  const t = report.totals;
  const quality = [
    ...report.subjects.map((s) => [
      s.subject.id,
      pct(s.recall),
      pct(s.citationPrecision),
      pct(s.dropped),
      pct(s.questions),
      pct(s.freshness.supersededGone),
      pct(s.freshness.addedPresent),
      String(s.privacy.leaks.length),
    ]),
    [
      "TOTAL",
      pct(t.recall),
      pct(t.citationPrecision),
      pct(t.dropped),
      pct(t.questions),
      pct(t.supersededGone),
      pct(t.addedPresent),
      String(t.leaks),
    ],
  ];
  const costRow = (subject: string, run: string, c: CostTotal | null) =>
    c === null
      ? [subject, run, "-", "-", "-", "-", "-", "-", "-"]
      : [
          subject,
          run,
          String(c.turns),
          String(c.toolCalls),
          String(c.inputTokens),
          String(c.outputTokens),
          String(c.wallMs),
          String(c.embeddings.calls),
          String(c.embeddings.inputTokens),
        ];
  const single = (c: SubjectScores["cost"]["full"]): CostTotal | null => (c === null ? null : costTotal([c]));
  const cost = [
    ...report.subjects.flatMap((s) => [
      costRow(s.subject.id, `full (${s.cost.full?.status ?? "none"})`, single(s.cost.full)),
      costRow("", `incremental (${s.cost.incremental?.status ?? "none"})`, single(s.cost.incremental)),
    ]),
    costRow("TOTAL", "full", t.full),
    costRow("", "incremental", t.incremental),
  ];
  const perModel = (label: string, usage: CostTotal["usage"]) =>
    Object.entries(usage).map(
      ([model, u]) =>
        `  ${label.padEnd(12)} ${model}: ${u.calls} calls, ${u.inputTokens} input / ${u.outputTokens} output tokens`,
    );
  const perEmbedding = (label: string, use: EmbeddingUse) =>
    report.models.embedding === null
      ? []
      : [
          `  ${label.padEnd(12)} ${report.models.embedding} (embeddings): ${use.calls} calls, ${use.inputTokens} input tokens`,
        ];
  const indexing =
    report.models.embedding === null
      ? "Workspace indexing: no embedding model (keyword-only search)"
      : `Workspace indexing (the embeddings queue after each ingest, not a run's cost): ${report.indexing.calls} calls, ${report.indexing.inputTokens} input tokens; waited ${(report.indexing.waitMs / 1000).toFixed(1)} s for it`;
  const ratio = (a: number, b: number) => (b === 0 ? "n/a" : (a / b).toFixed(3));
  const withScenarios = report.subjects.filter((s) => s.scenarios !== null);
  const scenarioTable =
    withScenarios.length === 0
      ? []
      : [
          "",
          "Freshness scenarios after the refresh (contradicted through a reply or an @-mention; dismissed, its item changed):",
          table(SCENARIO_COLUMNS, [
            ...withScenarios.map((s) => [
              s.subject.id,
              pct(s.scenarios!.linkedGone),
              pct(s.scenarios!.dismissedGone),
              String(s.scenarios!.dismissedRestated),
              String(
                (s.scenarios!.cost.contradiction?.inputTokens ?? 0) +
                  (s.scenarios!.cost.dismissal?.inputTokens ?? 0),
              ),
              String(
                (s.scenarios!.cost.contradiction?.embeddings?.calls ?? 0) +
                  (s.scenarios!.cost.dismissal?.embeddings?.calls ?? 0),
              ),
            ]),
            [
              "TOTAL",
              pct(t.linkedGone),
              pct(t.dismissedGone),
              String(t.dismissedRestated),
              String(t.scenarioRuns.inputTokens),
              String(t.scenarioRuns.embeddings.calls),
            ],
          ]),
        ];
  const problems = report.subjects.flatMap((s) => [
    ...s.recall.missed.map((id) => `  ${s.subject.id}: missed fact ${id}`),
    ...s.questions.wrong.map((id) => `  ${s.subject.id}: question not answered ${id}`),
    ...s.freshness.supersededGone.kept.map((id) => `  ${s.subject.id}: superseded fact still stated ${id}`),
    ...s.freshness.addedPresent.missed.map((id) => `  ${s.subject.id}: new fact missing ${id}`),
    ...s.privacy.leaks.map((l) => `  ${s.subject.id}: LEAK by ${l.how} (${l.detail}): ${l.statement}`),
    ...(s.scenarios?.linkedGone.kept ?? []).map(
      (text) => `  ${s.subject.id}: contradicted statement still stated: ${text}`,
    ),
  ]);
  return [
    `Eval of dataset "${report.dataset}": generator ${report.models.generator}, judge ${report.models.judge}, answerer ${report.models.answerer}`,
    "",
    table(QUALITY_COLUMNS, quality),
    "",
    table(COST_COLUMNS, cost),
    ...scenarioTable,
    "",
    "Tokens per model:",
    ...perModel("full", t.full.usage),
    ...perModel("incremental", t.incremental.usage),
    ...perEmbedding("full", t.full.embeddings),
    ...perEmbedding("incremental", t.incremental.embeddings),
    ...perModel("answerer", report.answererUsage),
    indexing,
    `Incremental / full: input tokens ${ratio(t.incremental.inputTokens, t.full.inputTokens)}, tool calls ${ratio(t.incremental.toolCalls, t.full.toolCalls)}, wall time ${ratio(t.incremental.wallMs, t.full.wallMs)}`,
    `Eval wall time: ${(report.wallMs / 1000).toFixed(1)} s`,
    ...(problems.length > 0 ? ["", "Details:", ...problems] : []),
  ].join("\n");
}

function table(header: readonly string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
