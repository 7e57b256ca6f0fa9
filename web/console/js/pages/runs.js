/**
 * The runs page: the ledger of the memory's runs, newest first, a page at a time: what started each, how
 * it ended, its effort (turns, tool calls, tokens per model), the judge's verdict and what was dropped.
 */
/** @import { RunsPage, Run, Usage } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf, memoryAnswerOf } from "../api.js";
import { el, labelled, replace, shortTime } from "../dom.js";
import { memoryPage } from "../routes.js";
import { costChart, everyDay, usd } from "../usage-chart.js";

const PAGE_SIZE = 20;

/**
 * The ledger's fields the console shows beyond the contract's named ones (the contract lets a run carry
 * more; these are what the service writes today).
 * @typedef {{
 *   turns?: number, toolCalls?: number,
 *   usage?: Record<string, { inputTokens: number, outputTokens: number, calls: number }>,
 *   verdict?: { accepted: boolean, reason: string } | null,
 *   errorCode?: string | null, errorMessage?: string | null,
 *   salvaged?: { statements: { section: string, text: string, reason: string }[] } | null,
 *   superseded?: { text: string }[] | null,
 * }} RunDetails
 */

/** @param {PageContext} context */
export async function renderRuns({ main, subject }) {
  main.classList.add("wide");
  const body = el("tbody", {});
  const more = el("div", {});
  replace(
    main,
    el("h1", {}, `${subject.label} memory: runs`),
    el("p", {}, el("a", { href: memoryPage(subject.team) }, "Back to the memory")),
    el(
      "div",
      { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Runs, newest first" },
      el(
        "table",
        { class: "runs stack" },
        el("caption", {}, "Newest first"),
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            RUN_COLUMNS.map((h) => el("th", { scope: "col" }, h)),
          ),
        ),
        body,
      ),
    ),
    more,
  );
  // The user's own cost per day (GET /me/usage covers the caller, not a team).
  if (!subject.team)
    main.insertBefore(el("div", {}, await myUsage(), el("h2", {}, "Ledger")), main.children[2] ?? null);

  /** @param {string | null} cursor */
  async function loadPage(cursor) {
    const page = /** @type {RunsPage} */ (
      await memoryAnswerOf(subject.team, "listRuns", { query: { limit: PAGE_SIZE, cursor } })
    );
    for (const run of page.runs) body.append(runRow(run));
    if (page.runs.length === 0 && !cursor) body.append(el("tr", {}, el("td", { colspan: 8 }, "No run yet.")));
    replace(
      more,
      page.nextCursor
        ? el("button", { type: "button", onclick: () => loadPage(page.nextCursor) }, "Older runs")
        : null,
    );
  }
  await loadPage(null);
}

/** The last 30 days of the user's runs: the total and the estimated cost per day. */
async function myUsage() {
  const usage = /** @type {Usage} */ (await answerOf("myUsage"));
  const cost = usage.days.reduce((sum, day) => sum + day.estimatedCostUsd, 0);
  const runs = usage.days.reduce((sum, day) => sum + day.runs, 0);
  const tokens = usage.days.reduce((sum, day) => sum + day.inputTokens + day.outputTokens, 0);
  return el(
    "section",
    { class: "my-usage", "aria-labelledby": "my-usage-title" },
    el("h2", { id: "my-usage-title" }, "Your usage"),
    el(
      "p",
      {},
      `${usage.since} to ${usage.until}: ${runs} run${runs === 1 ? "" : "s"}, `,
      cost > 0 || tokens === 0
        ? `estimated ${usd(cost)}`
        : `${tokens.toLocaleString()} tokens (no model has a price in MODEL_PRICES, so no cost is estimated)`,
      cost > 0 ? el("span", { class: "muted" }, " (models without a price count tokens only)") : null,
    ),
    costChart(
      everyDay(usage.days, usage.since, usage.until),
      "Your estimated cost per day",
      "Your tokens per day",
    ),
  );
}

const RUN_COLUMNS = [
  "Queued",
  "Trigger",
  "Outcome",
  "Turns",
  "Tool calls",
  "Tokens per model",
  "Judge",
  "Dropped",
];

/** @param {Run} run */
function runRow(run) {
  const details = /** @type {RunDetails} */ (run);
  const usage = Object.entries(details.usage ?? {});
  const dropped = [
    ...(details.salvaged?.statements ?? []).map((s) => `${s.text} (${s.reason})`),
    ...(details.superseded ?? []).map((s) => `${s.text} (superseded)`),
  ];
  return labelled(
    el(
      "tr",
      {},
      el("td", {}, shortTime(run.queuedAt)),
      el("td", {}, run.trigger),
      el(
        "td",
        {},
        el("span", { class: `badge run-${run.status}` }, run.status),
        run.attempt > 1 ? ` attempt ${run.attempt}` : "",
        details.errorCode
          ? el("div", { class: "muted" }, `${details.errorCode}: ${details.errorMessage ?? ""}`)
          : null,
      ),
      el("td", { class: "number" }, String(details.turns ?? 0)),
      el("td", { class: "number" }, String(details.toolCalls ?? 0)),
      el(
        "td",
        {},
        usage.length === 0
          ? "—"
          : el(
              "ul",
              { class: "plain" },
              usage.map(([model, u]) =>
                el(
                  "li",
                  {},
                  `${model}: ${u.inputTokens.toLocaleString()} in, ${u.outputTokens.toLocaleString()} out`,
                ),
              ),
            ),
      ),
      el(
        "td",
        {},
        details.verdict
          ? `${details.verdict.accepted ? "accepted" : "rejected"}: ${details.verdict.reason}`
          : "—",
      ),
      el(
        "td",
        {},
        dropped.length === 0
          ? "—"
          : el(
              "ul",
              { class: "plain" },
              dropped.map((text) => el("li", {}, text)),
            ),
      ),
    ),
    RUN_COLUMNS,
  );
}
