/**
 * A table of audit events, newest first, a page at a time (the admin's audit page and "My activity").
 * Every field (actor, client, subject) was written by someone else, so it goes in as text.
 */
/** @import { AuditPage, AuditEvent } from "../../../clients/typescript/src/types.js" */
/** @import { Query } from "./api.js" */
import { answerOf } from "./api.js";
import { el, replace, time } from "./dom.js";
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
        { class: "audit" },
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
    for (const event of page.events) body.append(eventRow(event));
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

/** @param {AuditEvent} event */
function eventRow(event) {
  return el(
    "tr",
    { class: "audit-event" },
    el("td", {}, time(event.at)),
    el("td", { class: "audit-actor" }, event.actor),
    el("td", {}, event.subject),
    el("td", { class: "audit-action" }, event.action),
    el("td", {}, event.channel),
    el("td", { class: "audit-client" }, event.client ?? "—"),
    el("td", { class: "number" }, String(event.status)),
    el("td", {}, event.version ? el("code", { title: event.version }, event.version.slice(0, 8)) : "—"),
    el("td", {}, itemLinks(event.itemIds)),
  );
}

const SHOWN_ITEMS = 5;

/**
 * The first few items as links (a search can return dozens), then how many more.
 * @param {string[]} ids
 */
function itemLinks(ids) {
  if (ids.length === 0) return "—";
  return el(
    "span",
    { class: "item-ids" },
    ids.slice(0, SHOWN_ITEMS).map((id) => el("a", { href: itemPage(id), title: id }, id.slice(0, 8))),
    ids.length > SHOWN_ITEMS ? el("span", { class: "muted" }, `+${ids.length - SHOWN_ITEMS} more`) : null,
  );
}
