/**
 * What every page shares: a skip link, the header (brand, navigation, the search landmark, who is signed
 * in) and the main region the page renders into.
 */
/** @import { Page } from "./pages.js" */
/** @import { Identity } from "./session.js" */
import { el } from "./dom.js";
import { PAGES } from "./pages.js";
import { memoryPage, searchPage, signInPage } from "./routes.js";
import { hasScope, signOut } from "./session.js";

/**
 * @param {string} name the current page
 * @param {Identity | null} who
 * @returns {HTMLElement} the main region
 */
export function renderShell(name, who) {
  const main = el(
    "main",
    { id: "main", tabindex: -1 },
    el("p", { class: "muted", role: "status" }, "Loading…"),
  );
  /** @param {"main" | "admin"} group */
  const links = (group) =>
    Object.entries(PAGES)
      .filter(
        /** @returns {entry is [string, Page & { nav: NonNullable<Page["nav"]> }]} */ (entry) =>
          entry[1].nav?.group === group,
      )
      .map(([pageName, page]) =>
        el(
          "li",
          {},
          el("a", { href: page.nav.href, "aria-current": pageName === name ? "page" : null }, page.nav.label),
        ),
      );
  const query = name === "search" ? (new URLSearchParams(location.search).get("q") ?? "") : "";

  const header = el(
    "header",
    { class: "site-header" },
    el("a", { class: "brand", href: memoryPage() }, "unified-memory"),
    who
      ? el(
          "nav",
          { "aria-label": "Console" },
          el("ul", {}, links("main")),
          hasScope(who, "admin")
            ? el("ul", { class: "admin-nav", "aria-label": "Admin" }, links("admin"))
            : null,
        )
      : null,
    who
      ? el(
          "search",
          { class: "header-search", "aria-label": "Search items" },
          el(
            "form",
            { method: "get", action: searchPage() },
            el("label", { for: "header-q", class: "visually-hidden" }, "Search items"),
            el("input", {
              type: "search",
              id: "header-q",
              name: "q",
              placeholder: "Search items",
              value: query,
            }),
            el("button", { type: "submit" }, "Search"),
          ),
        )
      : null,
    who
      ? el(
          "div",
          { class: "who" },
          el("span", {}, `Signed in as ${who.user}`),
          el(
            "button",
            {
              type: "button",
              class: "link-button",
              onclick: () => {
                signOut();
                location.assign(signInPage());
              },
            },
            "Sign out",
          ),
        )
      : null,
  );
  document.body.replaceChildren(
    el("a", { class: "skip-link", href: "#main" }, "Skip to content"),
    header,
    main,
  );
  return main;
}
