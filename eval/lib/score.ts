/**
 * Scoring: pure functions from what was observed (observation.ts) and what was expected (the dataset) to
 * the metrics of EVAL.md. The answerer is the only judgement; everything else is counting.
 */
import type { EvalSubject, EvalSubjectRef } from "../../fixtures/demo/eval-types";
import type { Answerer } from "./answerer";
import { draftOutcome } from "./drafts";
import { matchesKeywords } from "./keywords";
import type { EmbeddingUse, RunCost, ScenarioObservation, SubjectObservation } from "./observation";
import { findLeaks, type Leak } from "./privacy";

export interface Ratio {
  hit: number;
  total: number;
}

export interface SubjectScores {
  subject: EvalSubjectRef;
  /** Expected facts the first memory states. */
  recall: Ratio & { missed: string[] };
  /** Statements (of both memories) whose cited items support them. */
  citationPrecision: Ratio & { unsupported: string[] };
  /** Drafted statements (both runs) dropped or rewritten before acceptance: hit = dropped. */
  dropped: Ratio;
  /** Questions the memory alone answers correctly (the first memory, or the refreshed one when marked). */
  questions: Ratio & { wrong: string[] };
  /** After the refresh: superseded facts the first memory stated that are gone; new facts now stated. */
  freshness: { supersededGone: Ratio & { kept: string[] }; addedPresent: Ratio & { missed: string[] } };
  privacy: { leaks: Leak[] };
  cost: { full: RunCost | null; incremental: RunCost | null };
  /** The scenarios after the refresh; null when they were not run. */
  scenarios: ScenarioScores | null;
}

export interface ScenarioScores {
  /** Statements contradicted through a reply or an @-mention that the next memory no longer states. */
  linkedGone: Ratio & { kept: string[] };
  /** The dismissed statement absent after the next refresh (0/0 when none qualified). */
  dismissedGone: Ratio;
  /** Of those, how many the generator had written again (so the service's check kept them out). */
  dismissedRestated: number;
  cost: { contradiction: RunCost | null; dismissal: RunCost | null };
}

export function scoreScenarios(observed: ScenarioObservation | undefined): ScenarioScores | null {
  if (!observed) return null;
  const kept = observed.contradicted.filter((c) => c.stillStated).map((c) => c.text);
  const d = observed.dismissed;
  return {
    linkedGone: {
      hit: observed.contradicted.length - kept.length,
      total: observed.contradicted.length,
      kept,
    },
    dismissedGone: { hit: d?.absentAfter ? 1 : 0, total: d ? 1 : 0 },
    dismissedRestated: d?.restatedInDrafts ? 1 : 0,
    cost: { contradiction: observed.contradictionRun, dismissal: observed.dismissalRun },
  };
}

export async function scoreSubject(
  expected: EvalSubject,
  observed: SubjectObservation,
  hiddenShingles: Set<string>,
  answerer: Answerer,
): Promise<SubjectScores> {
  const first = observed.full.statements ?? [];
  const after = observed.refreshed.statements ?? [];
  const firstTexts = first.map((s) => s.text);
  const afterTexts = after.map((s) => s.text);

  const missed: string[] = [];
  for (const fact of expected.facts) if (!(await answerer.statesFact(firstTexts, fact))) missed.push(fact.id);

  const unsupported: string[] = [];
  const all = [...first, ...after];
  for (const s of all) {
    const cited = s.citations.map((id) => observed.items[id] ?? { id, visible: false, title: "", body: "" });
    if (!(await answerer.supports(s.text, cited))) unsupported.push(s.text);
  }

  const drafts = [
    draftOutcome(observed.full.drafts, observed.full.statements),
    draftOutcome(observed.refreshed.drafts, observed.refreshed.statements),
  ];

  const wrong: string[] = [];
  for (const q of expected.questions) {
    const answer = await answerer.answer(q.afterRefresh ? afterTexts : firstTexts, q.question);
    if (!matchesKeywords(answer, q.keywords)) wrong.push(q.id);
  }

  const stated: string[] = [];
  const kept: string[] = [];
  for (const fact of expected.freshness.superseded) {
    if (!(await answerer.statesFact(firstTexts, fact))) continue;
    stated.push(fact.id);
    if (await answerer.statesFact(afterTexts, fact)) kept.push(fact.id);
  }
  const newMissed: string[] = [];
  for (const fact of expected.freshness.added) {
    if (!(await answerer.statesFact(afterTexts, fact))) newMissed.push(fact.id);
  }

  return {
    subject: expected.subject,
    recall: { hit: expected.facts.length - missed.length, total: expected.facts.length, missed },
    citationPrecision: { hit: all.length - unsupported.length, total: all.length, unsupported },
    dropped: {
      hit: drafts.reduce((n, d) => n + d.dropped, 0),
      total: drafts.reduce((n, d) => n + d.drafted, 0),
    },
    questions: { hit: expected.questions.length - wrong.length, total: expected.questions.length, wrong },
    freshness: {
      supersededGone: { hit: stated.length - kept.length, total: stated.length, kept },
      addedPresent: {
        hit: expected.freshness.added.length - newMissed.length,
        total: expected.freshness.added.length,
        missed: newMissed,
      },
    },
    privacy: { leaks: findLeaks(all, observed.items, hiddenShingles) },
    cost: { full: observed.full.run, incremental: observed.refreshed.run },
    scenarios: scoreScenarios(observed.scenarios),
  };
}

export interface Totals {
  recall: Ratio;
  citationPrecision: Ratio;
  dropped: Ratio;
  questions: Ratio;
  supersededGone: Ratio;
  addedPresent: Ratio;
  leaks: number;
  full: CostTotal;
  incremental: CostTotal;
  /** The scenarios after the refresh, summed over the subjects that ran them. */
  linkedGone: Ratio;
  dismissedGone: Ratio;
  dismissedRestated: number;
  scenarioRuns: CostTotal;
}

export interface CostTotal {
  runs: number;
  turns: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  usage: Record<string, { inputTokens: number; outputTokens: number; calls: number }>;
  wallMs: number;
  /** The runs' embedding calls (search by meaning, the refresh's check by meaning). */
  embeddings: EmbeddingUse;
}

/** Sums over subjects (micro-averages: every fact, statement and question weighs the same). */
export function totals(scores: SubjectScores[]): Totals {
  const sum = (pick: (s: SubjectScores) => Ratio): Ratio => ({
    hit: scores.reduce((n, s) => n + pick(s).hit, 0),
    total: scores.reduce((n, s) => n + pick(s).total, 0),
  });
  return {
    recall: sum((s) => s.recall),
    citationPrecision: sum((s) => s.citationPrecision),
    dropped: sum((s) => s.dropped),
    questions: sum((s) => s.questions),
    supersededGone: sum((s) => s.freshness.supersededGone),
    addedPresent: sum((s) => s.freshness.addedPresent),
    leaks: scores.reduce((n, s) => n + s.privacy.leaks.length, 0),
    full: costTotal(scores.map((s) => s.cost.full)),
    incremental: costTotal(scores.map((s) => s.cost.incremental)),
    linkedGone: sum((s) => s.scenarios?.linkedGone ?? { hit: 0, total: 0 }),
    dismissedGone: sum((s) => s.scenarios?.dismissedGone ?? { hit: 0, total: 0 }),
    dismissedRestated: scores.reduce((n, s) => n + (s.scenarios?.dismissedRestated ?? 0), 0),
    scenarioRuns: costTotal(
      scores.flatMap((s) =>
        s.scenarios ? [s.scenarios.cost.contradiction, s.scenarios.cost.dismissal] : [],
      ),
    ),
  };
}

export function costTotal(runs: (RunCost | null)[]): CostTotal {
  const out: CostTotal = {
    runs: 0,
    turns: 0,
    toolCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    usage: {},
    wallMs: 0,
    embeddings: { calls: 0, inputTokens: 0 },
  };
  for (const r of runs) {
    if (!r) continue;
    out.runs++;
    out.turns += r.turns;
    out.toolCalls += r.toolCalls;
    out.inputTokens += r.inputTokens;
    out.outputTokens += r.outputTokens;
    out.wallMs += r.wallMs;
    out.embeddings.calls += r.embeddings?.calls ?? 0;
    out.embeddings.inputTokens += r.embeddings?.inputTokens ?? 0;
    for (const [model, u] of Object.entries(r.usage)) {
      const t = out.usage[model] ?? { inputTokens: 0, outputTokens: 0, calls: 0 };
      out.usage[model] = t;
      t.inputTokens += u.inputTokens;
      t.outputTokens += u.outputTokens;
      t.calls += u.calls;
    }
  }
  return out;
}

/** hit / total, or null when there was nothing to measure. */
export const rate = (r: Ratio): number | null => (r.total === 0 ? null : r.hit / r.total);
