/**
 * The search page: the items the user may see that match a query and filters (kind, dates, people), with
 * each hit's snippet, a page at a time. The filters are a GET form, so a search has an address.
 * A search mode selector appears when the service answers more than one mode (GET /health: keyword only
 * without an embedding model).
 */
/** @import { SearchPage, ItemKind } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf } from "../api.js";
import { searchModes } from "../contract.js";
import { el, notice, replace, time } from "../dom.js";
import { itemPage, searchPage } from "../routes.js";

/** @type {ItemKind[]} */
const KINDS = ["email", "message", "task", "doc", "call", "event", "file", "pull_request", "contact", "note"];
const PAGE_SIZE = 20;

/** @param {PageContext} context */
export async function renderSearch({ main, params }) {
  const q = params.get("q") ?? "";
  const kinds = (params.get("kind") ?? "").split(",").filter(Boolean);
  /** @type {string[]} */
  const modes = await searchModes();
  const mode = params.get("mode") ?? "";
  const results = el("ol", { class: "hits" });
  const more = el("div", {});
  const status = el("div", {});

  /**
   * @param {string} id
   * @param {string} label
   * @param {Node} control
   */
  const field = (id, label, control) =>
    el("div", { class: "field" }, el("label", { for: id }, label), control);

  const filters = el(
    "form",
    { method: "get", action: searchPage(), class: "filters", "aria-label": "Search filters" },
    field("filter-q", "Words", el("input", { type: "search", id: "filter-q", name: "q", value: q })),
    el(
      "fieldset",
      { class: "kinds" },
      el("legend", {}, "Kinds"),
      KINDS.map((kind) =>
        el(
          "label",
          { class: "check" },
          el("input", { type: "checkbox", name: "kind", value: kind, checked: kinds.includes(kind) }),
          ` ${kind.replace("_", " ")}`,
        ),
      ),
    ),
    field(
      "filter-since",
      "From",
      el("input", { type: "date", id: "filter-since", name: "since", value: params.get("since") ?? "" }),
    ),
    field(
      "filter-until",
      "Before",
      el("input", { type: "date", id: "filter-until", name: "until", value: params.get("until") ?? "" }),
    ),
    field(
      "filter-people",
      "People (comma-separated)",
      el("input", { type: "text", id: "filter-people", name: "people", value: params.get("people") ?? "" }),
    ),
    modes.length > 1
      ? field(
          "filter-mode",
          "Mode",
          el(
            "select",
            { id: "filter-mode", name: "mode" },
            // The service's own default first (hybrid with an embedder, else keyword): no mode is sent.
            el("option", { value: "", selected: !modes.includes(mode) }, "default"),
            modes.map((m) => el("option", { value: m, selected: m === mode }, m)),
          ),
        )
      : null,
    el("button", { type: "submit" }, "Search"),
  );
  // Repeated checkboxes arrive as kind=a&kind=b; the API takes them comma-separated too.
  const query = {
    q,
    kind: params
      .getAll("kind")
      .flatMap((k) => k.split(","))
      .filter(Boolean),
    since: params.get("since"),
    until: params.get("until"),
    people: (params.get("people") ?? "")
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean),
    ...(modes.length > 1 && modes.includes(mode) ? { mode } : {}),
    limit: PAGE_SIZE,
  };

  replace(main, el("h1", {}, q ? `Search: ${q}` : "Search"), filters, status, results, more);

  /** @param {string | null} cursor */
  async function loadPage(cursor) {
    const page = /** @type {SearchPage} */ (await answerOf("searchItems", { query: { ...query, cursor } }));
    for (const hit of page.items) {
      results.append(
        el(
          "li",
          { class: "hit" },
          el("a", { href: itemPage(hit.id) }, hit.title?.trim() || `Untitled ${hit.kind}`),
          el(
            "p",
            { class: "muted" },
            `${hit.kind} · ${hit.author ?? "unknown author"} · `,
            time(hit.occurredAt, false),
          ),
          hit.snippet ? el("p", { class: "snippet" }, hit.snippet) : null,
        ),
      );
    }
    if (!cursor) {
      replace(
        status,
        page.items.length === 0
          ? notice("info", "No item matches.")
          : notice("info", `${page.items.length}${page.nextCursor ? "+" : ""} items`),
      );
    }
    replace(
      more,
      page.nextCursor
        ? el("button", { type: "button", onclick: () => loadPage(page.nextCursor) }, "More results")
        : null,
    );
  }
  await loadPage(null);
}
