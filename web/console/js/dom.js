/**
 * Building the page: every string goes in as text (a Text node or textContent), never as markup, because
 * titles, bodies and names are written by other people. This module is the only place that creates
 * elements from data; nothing in the console parses a string as markup.
 */

/**
 * @typedef {Node | string | number | null | undefined | false} Child
 * @typedef {Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>} Attributes
 */

/**
 * An element with attributes (an `on*` function is an event listener; other values are attributes, set
 * only when not null, undefined or false) and children (strings become Text nodes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes} [attributes]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, "");
    else if (value !== null && value !== undefined && value !== false)
      element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {Node} parent
 * @param {(Child | Child[])[]} children
 */
export function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces an element's content.
 * @param {Element} parent
 * @param {...(Child | Child[])} children
 */
export function replace(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/** A URL the console may turn into a link: http(s) only. */
const WEB_URL = /\bhttps?:\/\/[^\s<>"'`]+[^\s<>"'`.,;:!?)\]}]/gi;

/**
 * @param {string} candidate
 * @returns {string | null} the URL if it is http(s)
 */
export function webUrl(candidate) {
  try {
    const url = new URL(candidate);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A link that leaves the console: opens in a new tab, without a referrer or a handle on this page.
 * @param {string} href an http(s) URL (checked by webUrl)
 * @param {Child} label
 */
export const externalLink = (href, label) =>
  el("a", { href, rel: "noopener noreferrer", target: "_blank" }, label);

/**
 * Text with its http(s) URLs made clickable; everything else (including javascript: or data: addresses)
 * stays plain text.
 * @param {string} text
 * @returns {Node[]}
 */
export function linkified(text) {
  /** @type {Node[]} */
  const nodes = [];
  let last = 0;
  for (const match of text.matchAll(WEB_URL)) {
    const start = match.index ?? 0;
    const href = webUrl(match[0]);
    if (!href) continue;
    if (start > last) nodes.push(document.createTextNode(text.slice(last, start)));
    nodes.push(externalLink(href, match[0]));
    last = start + match[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

/**
 * @param {string | null | undefined} iso
 * @param {boolean} [withTime]
 */
export function formatDate(iso, withTime = true) {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return withTime
    ? date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
    : date.toLocaleDateString(undefined, { dateStyle: "medium" });
}

/**
 * A <time> element for an instant.
 * @param {string | null | undefined} iso
 * @param {boolean} [withTime]
 */
export const time = (iso, withTime = true) =>
  iso ? el("time", { datetime: iso }, formatDate(iso, withTime)) : document.createTextNode("—");

/**
 * A status line read out by screen readers when it changes.
 * @param {"info" | "error" | "warning"} tone
 * @param {...(Child | Child[])} children
 */
export const notice = (tone, ...children) =>
  el("p", { class: `notice notice-${tone}`, role: tone === "error" ? "alert" : "status" }, ...children);

/**
 * Names each cell of a table row after its column (`data-label`), so a narrow window can show the row as a
 * card of labelled lines (console.css, `table.stack`) instead of a table cut off at the side.
 * @param {HTMLTableRowElement} row
 * @param {readonly string[]} columns
 * @returns {HTMLTableRowElement}
 */
export function labelled(row, columns) {
  [...row.cells].forEach((cell, i) => {
    if (columns[i] && cell.colSpan === 1) cell.setAttribute("data-label", columns[i]);
  });
  return row;
}

/**
 * An instant short enough for a table cell ("4 Dec 2026, 10:05"), the full one in its title.
 * @param {string | null | undefined} iso
 */
export function shortTime(iso) {
  if (!iso) return document.createTextNode("—");
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return document.createTextNode(iso);
  return el(
    "time",
    { datetime: iso, title: formatDate(iso) },
    date.toLocaleString(undefined, {
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
    }),
  );
}
