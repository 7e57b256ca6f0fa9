/**
 * The admin's usage page: each subject's runs, tokens, reads and estimated cost over a date range
 * (GET /usage), sortable, with the workspace's estimated cost per day as a chart and a table.
 */
/** @import { WorkspaceUsage, UsageDay } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf } from "../api.js";
import { el, labelled, replace } from "../dom.js";
import { usagePage } from "../routes.js";
import { chartsTokens, costChart, everyDay, usd } from "../usage-chart.js";

const USAGE_COLUMNS = ["Subject", "Runs", "LLM calls", "Reads", "Tokens in / out", "Estimated cost"];
const SORTS = /** @type {const} */ (["cost", "tokens", "subject"]);

/**
 * @param {string} id
 * @param {string} label
 * @param {Node} control
 */
const field = (id, label, control) => el("div", { class: "field" }, el("label", { for: id }, label), control);

/** @param {PageContext} context */
export async function renderAdminUsage({ main, params }) {
  main.classList.add("wide");
  const sortParam = params.get("sort") ?? "cost";
  const sort = SORTS.find((s) => s === sortParam) ?? "cost";
  const usage = /** @type {WorkspaceUsage} */ (
    await answerOf("workspaceUsage", {
      query: { since: params.get("since"), until: params.get("until"), sort },
    })
  );
  const form = el(
    "form",
    { method: "get", action: usagePage(), class: "filters", "aria-label": "Usage range" },
    field(
      "usage-since",
      "From (UTC)",
      el("input", { type: "date", id: "usage-since", name: "since", value: usage.since }),
    ),
    field(
      "usage-until",
      "To (UTC)",
      el("input", { type: "date", id: "usage-until", name: "until", value: usage.until }),
    ),
    field(
      "usage-sort",
      "Sort by",
      el(
        "select",
        { id: "usage-sort", name: "sort" },
        SORTS.map((s) => el("option", { value: s, selected: s === sort }, s)),
      ),
    ),
    el("button", { type: "submit" }, "Show"),
  );

  /** @type {Map<string, UsageDay>} the workspace's days, summed over its subjects */
  const total = new Map();
  for (const subject of usage.subjects)
    for (const day of subject.days) {
      const sum = total.get(day.date);
      total.set(
        day.date,
        sum
          ? {
              ...sum,
              runs: sum.runs + day.runs,
              inputTokens: sum.inputTokens + day.inputTokens,
              outputTokens: sum.outputTokens + day.outputTokens,
              estimatedCostUsd: sum.estimatedCostUsd + day.estimatedCostUsd,
            }
          : day,
      );
    }

  const days = everyDay([...total.values()], usage.since, usage.until);

  /** @param {typeof SORTS[number]} by @param {string} label */
  const sortLink = (by, label) =>
    by === sort
      ? el("span", { "aria-current": "true" }, `${label} ▾`)
      : el("a", { href: usagePage({ since: usage.since, until: usage.until, sort: by }) }, label);

  replace(
    main,
    el("h1", {}, "Usage"),
    form,
    el(
      "div",
      { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Usage per subject" },
      el(
        "table",
        { class: "usage stack" },
        el("caption", {}, `Per subject, ${usage.since} to ${usage.until}, by ${sort}`),
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", { scope: "col" }, sortLink("subject", "Subject")),
            ["Runs", "LLM calls", "Reads"].map((h) => el("th", { scope: "col" }, h)),
            el("th", { scope: "col" }, sortLink("tokens", "Tokens in / out")),
            el("th", { scope: "col" }, sortLink("cost", "Estimated cost")),
          ),
        ),
        el(
          "tbody",
          {},
          usage.subjects.length === 0
            ? el("tr", {}, el("td", { colspan: 6 }, "No usage in this range."))
            : usage.subjects.map((s) =>
                labelled(
                  el(
                    "tr",
                    { class: "usage-subject" },
                    el("th", { scope: "row" }, s.subject),
                    el("td", { class: "number" }, String(s.runs)),
                    el("td", { class: "number" }, String(s.llmCalls)),
                    el("td", { class: "number" }, String(s.reads)),
                    el(
                      "td",
                      { class: "number" },
                      `${s.inputTokens.toLocaleString()} / ${s.outputTokens.toLocaleString()}`,
                    ),
                    el("td", { class: "number" }, usd(s.estimatedCostUsd)),
                  ),
                  USAGE_COLUMNS,
                ),
              ),
        ),
      ),
    ),
    el("h2", {}, chartsTokens(days) ? "Tokens per day" : "Estimated cost per day"),
    costChart(days, "Workspace estimated cost per day", "Workspace tokens per day"),
    el("p", { class: "muted" }, "Models without a price in MODEL_PRICES count tokens only, at no cost."),
  );
}
