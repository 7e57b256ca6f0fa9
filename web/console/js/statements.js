/**
 * How a statement of a memory reads everywhere in the console (the memory, a version as of a date, a
 * diff): its text, its citations as links to the cited items' pages, and when it holds since.
 */
/** @import { Citation } from "../../../clients/typescript/src/types.js" */
import { el, formatDate } from "./dom.js";
import { itemPage } from "./routes.js";

/** @param {Citation} citation */
export const citationLabel = (citation) => citation.title?.trim() || `Untitled ${citation.kind ?? "item"}`;

/**
 * The citations of one statement, numbered in its order.
 * @param {Citation[]} citations
 */
export function citationList(citations) {
  return el(
    "ol",
    { class: "citations", "aria-label": "Sources" },
    citations.map((citation) =>
      el(
        "li",
        {},
        el("a", { href: itemPage(citation.id) }, citationLabel(citation)),
        el(
          "span",
          { class: "muted" },
          ` · ${citation.kind ?? "item"}${citation.occurredAt ? ` · ${formatDate(citation.occurredAt, false)}` : ""}`,
        ),
      ),
    ),
  );
}

/**
 * @typedef {{ id: string, section: string, text: string | null, citations: Citation[], since: string | null }} StatementLike
 */

/**
 * One statement as a list item; `actions` (e.g. a dismiss button) come after it.
 * @param {StatementLike} statement
 * @param {Node[]} [actions]
 * @param {Node[]} [notes] e.g. why it was removed
 */
export function statementItem(statement, actions = [], notes = []) {
  return el(
    "li",
    { class: "statement", "data-statement-id": statement.id },
    el("p", { class: "statement-text" }, statement.text ?? "(words not kept: a cited item was withdrawn)"),
    notes,
    statement.citations.length > 0 ? citationList(statement.citations) : null,
    el(
      "p",
      { class: "statement-meta muted" },
      statement.since ? `Since ${formatDate(statement.since, false)}` : "Since: unknown",
      actions.length > 0 ? el("span", { class: "actions" }, actions) : null,
    ),
  );
}

/**
 * Statements grouped under their sections, in the order the sections first appear.
 * @template {StatementLike} S
 * @param {S[]} statements
 * @param {(statement: S) => Node} render
 * @param {"h2" | "h3"} [heading]
 */
export function bySection(statements, render, heading = "h2") {
  /** @type {Map<string, S[]>} */
  const sections = new Map();
  for (const statement of statements) {
    const list = sections.get(statement.section) ?? [];
    list.push(statement);
    sections.set(statement.section, list);
  }
  return [...sections].map(([section, list]) =>
    el(
      "section",
      { class: "memory-section" },
      el(heading, {}, section),
      el("ul", { class: "statements" }, list.map(render)),
    ),
  );
}

/** The mark on what the fake LLM of `npm run dev -- --fake-llm` wrote: not a real model's words. */
export const fakeBadge = () =>
  el(
    "span",
    {
      class: "badge badge-fake",
      title: "Written by the fake LLM of npm run dev -- --fake-llm, not a real model",
    },
    "fake model",
  );
