/**
 * A table of audit events, newest first, a page at a time (the admin's audit page and "My activity").
 * Every field (actor, client, subject) was written by someone else, so it goes in as text. Items show
 * their titles where the caller may see them (the page's `items`), else a short id; on a narrow window
 * each event is a card of labelled lines (`table.stack`).
 */
/** @import { AuditPage, AuditEvent } from "../../../clients/typescript/src/types.js" */
/** @import { Query } from "./api.js" */
import { answerOf } from "./api.js";
import { el, labelled, replace, shortTime } from "./dom.js";
import { itemPage } from "./routes.js";

const PAGE_SIZE = 50;
const COLUMNS = ["At", "Actor", "Subject", "Action", "Channel", "Client", "Status", "Version", "Items"];

/**
 * The table, filled with the first page; "Older events" loads the next.
 * @param {"workspaceAudit" | "myAudit"} operation GET /audit or GET /me/audit
 * @param {Query} filters
 * @param {string} label
 */
export async function auditTable(operation, filters, label) {
  const body = el("tbody", {});
  const more = el("div", {});
  const section = el(
    "div",
    {},
    el(
      "div",
      { class: "table-scroll", tabindex: 0, role: "region", "aria-label": label },
      el(
        "table",
        { class: "audit stack" },
        el("caption", {}, "Newest first"),
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            COLUMNS.map((h) => el("th", { scope: "col" }, h)),
          ),
        ),
        body,
      ),
    ),
    more,
  );

  /** @param {string | null} cursor */
  async function loadPage(cursor) {
    const page = /** @type {AuditPage} */ (
      await answerOf(operation, { query: { ...filters, limit: PAGE_SIZE, cursor } })
    );
    const titles = new Map(
      page.items.map((item) => [item.id, item.title?.trim() || `Untitled ${item.kind}`]),
    );
    for (const event of page.events) body.append(eventRow(event, titles));
    if (page.events.length === 0 && !cursor)
      body.append(el("tr", {}, el("td", { colspan: COLUMNS.length }, "No event.")));
    replace(
      more,
      page.nextCursor
        ? el("button", { type: "button", onclick: () => loadPage(page.nextCursor) }, "Older events")
        : null,
    );
  }
  await loadPage(null);
  return section;
}

/**
 * @param {AuditEvent} event
 * @param {Map<string, string>} titles
 */
function eventRow(event, titles) {
  return labelled(
    el(
      "tr",
      { class: "audit-event" },
      el("td", { class: "audit-at" }, shortTime(event.at)),
      el("td", { class: "audit-actor" }, event.actor),
      el("td", {}, event.subject),
      el("td", { class: "audit-action" }, event.action),
      el("td", {}, event.channel),
      el("td", { class: "audit-client" }, event.client ?? "—"),
      el("td", { class: "number" }, String(event.status)),
      el("td", {}, event.version ? el("code", { title: event.version }, event.version.slice(0, 8)) : "—"),
      el("td", { class: "audit-items" }, itemLinks(event.itemIds, titles)),
    ),
    COLUMNS,
  );
}

const SHOWN_ITEMS = 5;

/**
 * The first few items as links, by title where the caller may see them (a search can return dozens), then
 * how many more.
 * @param {string[]} ids
 * @param {Map<string, string>} titles
 */
function itemLinks(ids, titles) {
  if (ids.length === 0) return "—";
  return el(
    "ul",
    { class: "item-ids plain" },
    ids
      .slice(0, SHOWN_ITEMS)
      .map((id) =>
        el("li", {}, el("a", { href: itemPage(id), title: id }, titles.get(id) ?? id.slice(0, 8))),
      ),
    ids.length > SHOWN_ITEMS ? el("li", { class: "muted" }, `+${ids.length - SHOWN_ITEMS} more`) : null,
  );
}
