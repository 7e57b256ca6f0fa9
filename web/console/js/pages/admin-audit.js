/**
 * The admin's audit page: the workspace's events newest first (GET /audit), filtered by actor, subject,
 * action and dates. The filters are a GET form, so a filtered view has an address.
 */
/** @import { AuditEvent } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { auditTable } from "../audit-table.js";
import { el, replace } from "../dom.js";
import { auditPage } from "../routes.js";

/** @type {AuditEvent["action"][]} */
const ACTIONS = [
  "memory.read",
  "memory.version.read",
  "memory.diff.read",
  "item.read",
  "items.search",
  "item.delete",
  "item.unshare",
  "statement.dismiss",
  "me.erase",
  "member.remove",
  "team.change",
];

/**
 * @param {string} id
 * @param {string} label
 * @param {Node} control
 */
const field = (id, label, control) => el("div", { class: "field" }, el("label", { for: id }, label), control);

/** A day (UTC) from a date input as the instant the API takes. */
const dayStart = (/** @type {string | null} */ day) => (day ? `${day}T00:00:00Z` : null);

/** @param {PageContext} context */
export async function renderAdminAudit({ main, params }) {
  const value = (/** @type {string} */ name) => params.get(name) ?? "";
  const action = value("action");
  const filters = el(
    "form",
    { method: "get", action: auditPage(), class: "filters", "aria-label": "Audit filters" },
    field(
      "audit-actor",
      "Actor",
      el("input", { type: "text", id: "audit-actor", name: "actor", value: value("actor") }),
    ),
    field(
      "audit-subject",
      "Subject",
      el("input", { type: "text", id: "audit-subject", name: "subject", value: value("subject") }),
    ),
    field(
      "audit-action",
      "Action",
      el(
        "select",
        { id: "audit-action", name: "action" },
        el("option", { value: "", selected: action === "" }, "any"),
        ACTIONS.map((a) => el("option", { value: a, selected: a === action }, a)),
      ),
    ),
    field(
      "audit-since",
      "From (UTC)",
      el("input", { type: "date", id: "audit-since", name: "since", value: value("since") }),
    ),
    field(
      "audit-until",
      "Before (UTC)",
      el("input", { type: "date", id: "audit-until", name: "until", value: value("until") }),
    ),
    el("button", { type: "submit" }, "Filter"),
  );
  const table = await auditTable(
    "/audit",
    {
      actor: params.get("actor"),
      subject: params.get("subject"),
      action: action || null,
      since: dayStart(params.get("since")),
      until: dayStart(params.get("until")),
    },
    "Audit events, newest first",
  );
  replace(main, el("h1", {}, "Audit"), filters, table);
}
