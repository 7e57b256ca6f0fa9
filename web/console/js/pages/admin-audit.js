/**
 * The admin's audit page: the workspace's events newest first (GET /audit), filtered by actor, subject,
 * action (the actions the API's contract lists) and dates. The filters are a GET form, so a filtered view
 * has an address.
 */
/** @import { PageContext } from "../pages.js" */
import { auditTable } from "../audit-table.js";
import { auditActions } from "../contract.js";
import { el, replace } from "../dom.js";
import { auditPage } from "../routes.js";

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
  main.classList.add("wide");
  const value = (/** @type {string} */ name) => params.get(name) ?? "";
  const action = value("action");
  const actions = await auditActions();
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
        actions.map((a) => el("option", { value: a, selected: a === action }, a)),
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
    "workspaceAudit",
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
