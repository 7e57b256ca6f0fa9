/**
 * An item's page: what it is, who wrote it and to whom, its body as text (http(s) addresses clickable, its
 * mentions as links to the items they name), its links both ways (to items the user may see, as the API
 * answers), whom it is shared with, the statements of the user's current memory that cite it, and for its
 * owner Delete (a direct sharee: Leave), after a confirmation.
 */
/** @import { Item } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { ApiError, answerOf, request } from "../api.js";
import { el, externalLink, notice, replace, time, webUrl } from "../dom.js";
import { bodyWithMentions } from "../mentions.js";
import { itemPage, memoryPage, versionsPage } from "../routes.js";
import { hasScope } from "../session.js";

/** @param {PageContext} context */
export async function renderItem({ main, params, who }) {
  const id = params.get("id");
  if (!id) {
    replace(main, el("h1", {}, "Item"), notice("error", "No item id in the address."));
    return;
  }
  const item = /** @type {Item} */ (await answerOf("getItem", { params: { id } }));
  const title = item.title?.trim() || `Untitled ${item.kind}`;
  document.title = `${title} · unified-memory`;
  const original = item.url ? webUrl(item.url) : null;
  const outgoing = item.links.filter((link) => link.direction === "outgoing");
  const incoming = item.links.filter((link) => link.direction === "incoming");
  const status = el("div", {});

  replace(
    main,
    el("p", { class: "eyebrow" }, `${item.kind} · ${item.source}`),
    el("h1", { class: "item-title" }, title),
    status,
    el(
      "dl",
      { class: "facts" },
      fact("Kind", item.kind),
      fact("Author", item.author ?? "—"),
      fact("Participants", item.participants.length > 0 ? item.participants.join(", ") : "—"),
      fact("Date", time(item.occurredAt)),
      fact("Owner", item.ownerId),
      fact("Shared with", item.sharedWith.length > 0 ? item.sharedWith.join(", ") : "Nobody (private)"),
      original ? fact("Original", externalLink(original, original)) : null,
    ),
    removal(item, who?.user ?? null, hasScope(who, "items:write"), status),
    el("h2", {}, "Body"),
    el("div", { class: "item-body" }, bodyWithMentions(item)),
    el("h2", {}, "Cited by your memory"),
    item.citedBy.length === 0
      ? el("p", { class: "muted", id: "cited-by" }, "No statement of your current memory cites it.")
      : el(
          "ul",
          { class: "cited-by", id: "cited-by" },
          item.citedBy.map((statement) =>
            el(
              "li",
              {},
              el("span", { class: "statement-text" }, statement.text),
              el("span", { class: "muted" }, ` · ${statement.section}`),
            ),
          ),
        ),
    el("h2", {}, "Links"),
    linkList("Links to", outgoing),
    linkList("Linked from", incoming),
  );
}

/**
 * Delete (the owner) or Leave (shared with the user by name), after a confirmation; nothing when the user
 * sees the item only through a team (leaving the team ends that) or may not write.
 * @param {Item} item
 * @param {string | null} user
 * @param {boolean} canWrite
 * @param {HTMLElement} status
 */
function removal(item, user, canWrite, status) {
  if (!canWrite || user === null) return null;
  const owns = item.ownerId === user;
  if (!owns && !item.sharedWith.includes(user)) return null;
  const cited = item.citedBy.length;
  const consequence =
    cited > 0
      ? `${cited} statement${cited === 1 ? "" : "s"} of your memory cite${cited === 1 ? "s" : ""} it and will be taken out (redacted) at once.`
      : "No statement of your current memory cites it.";
  const what = owns
    ? `Delete “${item.title?.trim() || `this ${item.kind}`}” for everyone it is shared with?`
    : `Leave “${item.title?.trim() || `this ${item.kind}`}”? It stays for its owner and the others.`;
  const confirm = el("button", { type: "submit", class: "danger" }, owns ? "Delete item" : "Leave");
  const error = el("div", {});
  const form = el(
    "form",
    { method: "dialog" },
    el("h2", { id: "remove-title" }, what),
    el("p", {}, consequence, " You cannot undo this here; adding it again is a new item."),
    error,
    el(
      "div",
      { class: "toolbar" },
      confirm,
      el("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, "Cancel"),
    ),
  );
  const dialog = el("dialog", { "aria-labelledby": "remove-title" }, form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    confirm.disabled = true;
    try {
      await request("deleteItem", { params: { id: item.id } });
      dialog.close();
      const main = status.closest("main");
      if (main)
        replace(
          main,
          el("h1", {}, owns ? "Item deleted" : "Share left"),
          notice(
            "info",
            owns ? "Deleted. " : "You no longer see it. ",
            cited > 0
              ? `${cited} statement${cited === 1 ? " was" : "s were"} taken out of your memory (the version shows it as redacted). `
              : "",
          ),
          el(
            "p",
            {},
            el("a", { href: memoryPage() }, "Your memory"),
            " · ",
            el("a", { href: versionsPage() }, "Versions"),
          ),
        );
    } catch (failure) {
      if (!(failure instanceof ApiError)) throw failure;
      replace(error, notice("error", failure.message));
    } finally {
      confirm.disabled = false;
    }
  });
  return el(
    "div",
    { class: "toolbar" },
    el(
      "button",
      { type: "button", class: "danger", onclick: () => dialog.showModal() },
      owns ? "Delete item…" : "Leave share…",
    ),
    dialog,
  );
}

/**
 * @param {string} term
 * @param {Node | string} value
 */
const fact = (term, value) => el("div", {}, el("dt", {}, term), el("dd", {}, value));

/**
 * One entry per linked item (a pull request both referenced and mentioned is listed once, with both kinds).
 * @param {string} heading
 * @param {Item["links"]} links
 */
function linkList(heading, links) {
  /** @type {Map<string, { item: Item["links"][number]["item"], kinds: string[] }>} */
  const byItem = new Map();
  for (const link of links) {
    const entry = byItem.get(link.item.id) ?? { item: link.item, kinds: [] };
    if (!entry.kinds.includes(link.kind)) entry.kinds.push(link.kind);
    byItem.set(link.item.id, entry);
  }
  return el(
    "section",
    { class: "links" },
    el("h3", {}, heading),
    byItem.size === 0
      ? el("p", { class: "muted" }, "None")
      : el(
          "ul",
          {},
          [...byItem.values()].map(({ item, kinds }) =>
            el(
              "li",
              {},
              el("a", { href: itemPage(item.id) }, item.title?.trim() || `Untitled ${item.kind}`),
              el(
                "span",
                { class: "muted" },
                ` · ${kinds.join(", ")} · ${item.kind} · `,
                time(item.occurredAt, false),
              ),
            ),
          ),
        ),
  );
}
