/**
 * Estimated cost per day as a bar chart (an inline SVG built node by node, no library) beside the same
 * figures as a table, which is what a screen reader reads. When nothing has a cost (no model has a price in
 * MODEL_PRICES, as in dev) the bars are tokens per day instead of an empty "$0" chart. Bars are sized by attributes, not styles, so the
 * Content-Security-Policy's `style-src 'self'` has nothing to refuse.
 */
/** @import { UsageDay } from "../../../clients/typescript/src/types.js" */
import { el, labelled } from "./dom.js";

const DAY_COLUMNS = ["Day", "Runs", "Tokens", "Estimated cost"];

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 640;
const HEIGHT = 240;
const PAD = { left: 64, right: 12, top: 16, bottom: 44 };

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {...(Node | string)} children
 */
function svg(tag, attributes, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

/** @param {number} usd */
export const usd = (usd) => (usd === 0 ? "$0" : usd < 0.01 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(2)}`);

/**
 * The days from `since` to `until` (inclusive, UTC), each with its figures or zeros.
 * @param {UsageDay[]} days
 * @param {string} since
 * @param {string} until
 * @returns {{ date: string, cost: number, tokens: number, runs: number }[]}
 */
export function everyDay(days, since, until) {
  const byDate = new Map(days.map((d) => [d.date, d]));
  const out = [];
  const end = Date.parse(`${until}T00:00:00Z`);
  for (let t = Date.parse(`${since}T00:00:00Z`); t <= end && out.length < 366; t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10);
    const day = byDate.get(date);
    out.push({
      date,
      cost: day?.estimatedCostUsd ?? 0,
      tokens: (day?.inputTokens ?? 0) + (day?.outputTokens ?? 0),
      runs: day?.runs ?? 0,
    });
  }
  return out;
}

/** @param {number} tokens */
const tokenCount = (tokens) =>
  tokens >= 1_000_000
    ? `${(tokens / 1_000_000).toFixed(1)}M`
    : tokens >= 1000
      ? `${Math.round(tokens / 1000)}k`
      : String(tokens);

/**
 * Whether a series has no cost to chart but tokens (no model with a price): then it charts tokens.
 * @param {{ cost: number, tokens: number }[]} series
 */
export const chartsTokens = (series) => series.every((d) => d.cost <= 0) && series.some((d) => d.tokens > 0);

/**
 * @param {{ date: string, cost: number, tokens: number, runs: number }[]} series
 * @param {string} title what the chart shows when it charts cost ("… estimated cost per day")
 * @param {string} tokensTitle what it shows when nothing has a cost ("… tokens per day")
 */
export function costChart(series, title, tokensTitle) {
  const byTokens = chartsTokens(series);
  const shown = byTokens ? tokensTitle : title;
  /** @param {{ cost: number, tokens: number }} day */
  const amountOf = (day) => (byTokens ? day.tokens : day.cost);
  const label = byTokens ? tokenCount : usd;
  const max = Math.max(0, ...series.map(amountOf));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, series.length);
  const barW = Math.max(1, step * 0.8);
  const chart = svg(
    "svg",
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      class: "chart",
      role: "img",
      "aria-labelledby": "chart-title",
      "data-metric": byTokens ? "tokens" : "cost",
    },
    svg("title", { id: "chart-title" }, shown),
    svg("line", {
      x1: PAD.left,
      y1: PAD.top + plotH,
      x2: PAD.left + plotW,
      y2: PAD.top + plotH,
      class: "axis",
    }),
    svg("line", { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: PAD.top + plotH, class: "axis" }),
    svg("text", { x: PAD.left - 6, y: PAD.top + 4, "text-anchor": "end", class: "tick" }, label(max)),
    svg("text", { x: PAD.left - 6, y: PAD.top + plotH, "text-anchor": "end", class: "tick" }, label(0)),
    svg(
      "text",
      {
        x: 12,
        y: PAD.top + plotH / 2,
        class: "axis-label",
        transform: `rotate(-90 12 ${PAD.top + plotH / 2})`,
        "text-anchor": "middle",
      },
      byTokens ? "Tokens (in + out)" : "Estimated cost (USD)",
    ),
    svg(
      "text",
      { x: PAD.left + plotW / 2, y: HEIGHT - 4, class: "axis-label", "text-anchor": "middle" },
      "Day (UTC)",
    ),
  );
  const first = series[0];
  const last = series[series.length - 1];
  if (first) chart.append(svg("text", { x: PAD.left, y: PAD.top + plotH + 16, class: "tick" }, first.date));
  if (last && last !== first)
    chart.append(
      svg(
        "text",
        { x: PAD.left + plotW, y: PAD.top + plotH + 16, "text-anchor": "end", class: "tick" },
        last.date,
      ),
    );
  series.forEach((day, i) => {
    if (amountOf(day) <= 0 || max <= 0) return;
    const h = Math.max(1, (amountOf(day) / max) * plotH);
    chart.append(
      svg(
        "rect",
        {
          x: PAD.left + i * step + (step - barW) / 2,
          y: PAD.top + plotH - h,
          width: barW,
          height: h,
          class: "bar",
        },
        svg(
          "title",
          {},
          `${day.date}: ${byTokens ? `${day.tokens.toLocaleString()} tokens` : usd(day.cost)}`,
        ),
      ),
    );
  });
  // Without any cost, a column of "$0" says nothing: the table keeps runs and tokens.
  const columns = byTokens ? DAY_COLUMNS.slice(0, 3) : DAY_COLUMNS;
  const rows = series.filter((d) => d.cost > 0 || d.tokens > 0 || d.runs > 0);
  const table = el(
    "div",
    { class: "table-scroll", tabindex: 0, role: "region", "aria-label": `${shown}, as a table` },
    el(
      "table",
      { class: "usage-days stack" },
      el("caption", {}, `${shown} (days with activity)`),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          columns.map((h) => el("th", { scope: "col" }, h)),
        ),
      ),
      el(
        "tbody",
        {},
        rows.length === 0
          ? el("tr", {}, el("td", { colspan: columns.length }, "Nothing in this range."))
          : rows.map((d) =>
              labelled(
                el(
                  "tr",
                  {},
                  el("td", { class: "date" }, d.date),
                  el("td", { class: "number" }, String(d.runs)),
                  el("td", { class: "number" }, d.tokens.toLocaleString()),
                  byTokens ? null : el("td", { class: "number" }, usd(d.cost)),
                ),
                columns,
              ),
            ),
      ),
    ),
  );
  return el("div", { class: "usage-chart" }, el("figure", {}, chart), table);
}
