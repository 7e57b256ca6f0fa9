/**
 * An item's body as the console shows it: `@[source:externalId]` mentions (and `@[externalId]`, in the
 * item's own source) become links to the items they name when the reader can see them (the item's outgoing
 * links, as GET /items/:id answers them), else the name as plain text, never the raw markup; http(s)
 * addresses are clickable (dom.js linkified). Everything stays text: nothing is parsed as markup.
 */
/** @import { Item } from "../../../clients/typescript/src/types.js" */
import { el, linkified } from "./dom.js";
import { itemPage } from "./routes.js";

/** The bracketed mention syntax the API parses (src/db/item-links.ts). */
const MENTION = /@\[([^\]\n]{1,600})\]/g;

/**
 * @param {string} inner what is between the brackets
 * @param {string} ownSource
 * @returns {{ source: string, externalId: string }}
 */
export function mentionTarget(inner, ownSource) {
  const text = inner.trim();
  const colon = text.indexOf(":");
  return colon > 0
    ? { source: text.slice(0, colon).trim(), externalId: text.slice(colon + 1).trim() }
    : { source: ownSource, externalId: text };
}

/**
 * @param {Pick<Item, "body" | "source" | "links">} item
 * @returns {Node[]}
 */
export function bodyWithMentions(item) {
  const targets = new Map(
    item.links
      .filter((link) => link.direction === "outgoing")
      .map((link) => [JSON.stringify([link.item.source, link.item.externalId]), link.item]),
  );
  /** @type {Node[]} */
  const nodes = [];
  let last = 0;
  for (const match of item.body.matchAll(MENTION)) {
    const start = match.index ?? 0;
    if (start > last) nodes.push(...linkified(item.body.slice(last, start)));
    const { source, externalId } = mentionTarget(match[1] ?? "", item.source);
    const target = targets.get(JSON.stringify([source, externalId]));
    const name = `${source}:${externalId}`;
    nodes.push(
      target
        ? el(
            "a",
            { href: itemPage(target.id), class: "mention-link", title: name },
            target.title?.trim() || name,
          )
        : el("span", { class: "mention", title: "An item you cannot see, or not imported yet" }, name),
    );
    last = start + match[0].length;
  }
  if (last < item.body.length) nodes.push(...linkified(item.body.slice(last)));
  return nodes;
}
