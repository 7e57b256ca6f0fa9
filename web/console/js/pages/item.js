/**
 * An item's page: what it is, who wrote it and to whom, its body as text (http(s) addresses clickable),
 * its links both ways (to items the user may see, as the API answers) and whom it is shared with.
 */
/** @import { Item } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf } from "../api.js";
import { el, externalLink, linkified, notice, replace, time, webUrl } from "../dom.js";
import { itemPage } from "../routes.js";

/** @param {PageContext} context */
export async function renderItem({ main, params }) {
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

  replace(
    main,
    el("p", { class: "eyebrow" }, `${item.kind} · ${item.source}`),
    el("h1", { class: "item-title" }, title),
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
    el("h2", {}, "Body"),
    el("div", { class: "item-body" }, linkified(item.body)),
    el("h2", {}, "Links"),
    linkList("Links to", outgoing),
    linkList("Linked from", incoming),
  );
}

/**
 * @param {string} term
 * @param {Node | string} value
 */
const fact = (term, value) => el("div", {}, el("dt", {}, term), el("dd", {}, value));

/**
 * @param {string} heading
 * @param {Item["links"]} links
 */
function linkList(heading, links) {
  return el(
    "section",
    { class: "links" },
    el("h3", {}, heading),
    links.length === 0
      ? el("p", { class: "muted" }, "None")
      : el(
          "ul",
          {},
          links.map((link) =>
            el(
              "li",
              {},
              el(
                "a",
                { href: itemPage(link.item.id) },
                link.item.title?.trim() || `Untitled ${link.item.kind}`,
              ),
              el(
                "span",
                { class: "muted" },
                ` · ${link.kind} · ${link.item.kind} · `,
                time(link.item.occurredAt, false),
              ),
            ),
          ),
        ),
  );
}
