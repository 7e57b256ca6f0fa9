/**
 * The usage ledger's vocabulary: what a subject's runs spent per day and model, what that is estimated to
 * cost from the price table (MODEL_PRICES), and the daily budgets a run is checked against before it calls
 * an LLM.
 */

/** USD per million input and output tokens, by model as the runs ledger names it (e.g. `claude-sonnet-4-5`). */
export type ModelPrices = Record<string, { input: number; output: number }>;

export interface DailyBudgets {
  /** The subject's estimated cost today (USD) at which no further run starts. */
  usd?: number;
  /** The subject's input + output tokens today at which no further run starts. */
  tokens?: number;
}

export interface ModelSpend {
  inputTokens: number;
  outputTokens: number;
  calls: number;
}

/** One subject's day as the usage table holds it (before pricing). */
export interface UsageRow {
  subjectKey: string;
  /** YYYY-MM-DD (UTC). */
  date: string;
  runs: number;
  succeeded: number;
  rejected: number;
  failed: number;
  budgetExhausted: number;
  byModel: Record<string, ModelSpend>;
  /** Reads of the subject's memory that day (from the audit trail). */
  reads: number;
}

export interface UsageDayJson {
  date: string;
  runs: number;
  runsByOutcome: { succeeded: number; rejected: number; failed: number; budgetExhausted: number };
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  byModel: Record<string, ModelSpend & { estimatedCostUsd: number | null }>;
  reads: number;
  /** The priced models' cost; models without a price show tokens only. */
  estimatedCostUsd: number;
}

/** The estimated cost of `spend` at `prices`; null for a model without a price. */
export function costOf(
  model: string,
  spend: Pick<ModelSpend, "inputTokens" | "outputTokens">,
  prices: ModelPrices,
) {
  const price = prices[model];
  if (!price) return null;
  return (spend.inputTokens * price.input + spend.outputTokens * price.output) / 1_000_000;
}

/** A day with its totals beside the per-model breakdown, priced. */
export function usageDay(row: UsageRow, prices: ModelPrices): UsageDayJson {
  let inputTokens = 0;
  let outputTokens = 0;
  let llmCalls = 0;
  let cost = 0;
  const byModel: UsageDayJson["byModel"] = {};
  for (const [model, spend] of Object.entries(row.byModel)) {
    inputTokens += spend.inputTokens;
    outputTokens += spend.outputTokens;
    llmCalls += spend.calls;
    const estimated = costOf(model, spend, prices);
    if (estimated !== null) cost += estimated;
    byModel[model] = { ...spend, estimatedCostUsd: estimated === null ? null : round(estimated) };
  }
  return {
    date: row.date,
    runs: row.runs,
    runsByOutcome: {
      succeeded: row.succeeded,
      rejected: row.rejected,
      failed: row.failed,
      budgetExhausted: row.budgetExhausted,
    },
    llmCalls,
    inputTokens,
    outputTokens,
    byModel,
    reads: row.reads,
    estimatedCostUsd: round(cost),
  };
}

/** Whether a subject that spent `today` may start another run; the reason when it may not. */
export function budgetExceeded(
  today: Record<string, ModelSpend>,
  budgets: DailyBudgets,
  prices: ModelPrices,
): string | null {
  const spends = Object.entries(today);
  if (budgets.tokens !== undefined) {
    const tokens = spends.reduce((n, [, s]) => n + s.inputTokens + s.outputTokens, 0);
    if (tokens >= budgets.tokens) return `${tokens} tokens today reach the daily budget of ${budgets.tokens}`;
  }
  if (budgets.usd !== undefined) {
    const usd = spends.reduce((n, [model, s]) => n + (costOf(model, s, prices) ?? 0), 0);
    if (usd >= budgets.usd) {
      return `an estimated ${round(usd)} USD today reaches the daily budget of ${budgets.usd} USD`;
    }
  }
  return null;
}

/** The UTC date of an instant, YYYY-MM-DD. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The next UTC midnight after `at`. */
export function nextUtcMidnight(at: Date): Date {
  const next = new Date(at);
  next.setUTCHours(24, 0, 0, 0);
  return next;
}

const round = (usd: number) => Math.round(usd * 1_000_000) / 1_000_000;

/** The usage ledger as the operations read it (Postgres in db/pg-usage-store.ts). */
export interface UsageStore {
  /**
   * One row per subject and day in [since, until] (YYYY-MM-DD, both inclusive) with anything on it: of the
   * given subject, or (workspaceId) of every subject of the workspace.
   */
  days(
    scope: { subjectKey: string } | { workspaceId: string },
    since: string,
    until: string,
  ): Promise<UsageRow[]>;
}
