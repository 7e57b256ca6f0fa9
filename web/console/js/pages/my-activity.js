/**
 * "My activity": who read the user's memory and items, and when (GET /me/audit), newest first.
 */
/** @import { PageContext } from "../pages.js" */
import { auditTable } from "../audit-table.js";
import { el, replace } from "../dom.js";

/** @param {PageContext} context */
export async function renderMyActivity({ main }) {
  main.classList.add("wide");
  const table = await auditTable("myAudit", {}, "Reads of your memory and items, newest first");
  replace(
    main,
    el("h1", {}, "My activity"),
    el(
      "p",
      { class: "muted" },
      "Who read your memory and your items, through which channel and client, and when.",
    ),
    table,
  );
}
