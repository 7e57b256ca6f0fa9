/**
 * The user's people: the list (most involved first, filtered by a name or an identifier), one person
 * (`?id=`: every identifier with its names, how it is linked and its evidence items, and the recent items,
 * with a split for each identifier), and the suggestions queue (accept: merge; reject: distinct).
 */
/** @import { PeoplePage, PersonDetail, Suggestions } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf, request } from "../api.js";
import { el, notice, replace, time } from "../dom.js";
import { itemPage, peoplePage } from "../routes.js";

const PAGE_SIZE = 50;

/** @param {PageContext} context */
export async function renderPeople({ main, params }) {
  const id = params.get("id");
  if (id) return renderPerson(main, id);
  const q = params.get("q") ?? "";
  const count = el("div", {});
  const list = el("ol", { class: "hits", "aria-label": "People" });
  const more = el("div", {});
  const queue = el("section", { "aria-labelledby": "suggestions-title" });
  // What an accept or a reject did, shown in the queue beside its buttons.
  const status = el("div", {});
  const search = el(
    "form",
    { method: "get", action: peoplePage(), class: "filters", "aria-label": "Find people" },
    el(
      "div",
      { class: "field" },
      el("label", { for: "people-q" }, "Name, address or account"),
      el("input", { type: "search", id: "people-q", name: "q", value: q }),
    ),
    el("button", { type: "submit" }, "Find"),
  );
  replace(main, el("h1", {}, "People"), search, count, list, more, queue);

  /** @param {string | null} cursor */
  async function loadPage(cursor) {
    const query = { ...(q ? { q } : {}), limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) };
    const page = /** @type {PeoplePage} */ (await answerOf("listPeople", { query }));
    for (const person of page.people) {
      list.append(
        el(
          "li",
          { class: "hit" },
          el("a", { href: peoplePage({ id: person.id }) }, person.name, person.self ? " (you)" : ""),
          el(
            "p",
            { class: "muted" },
            `${person.items} items · ${person.identifiers.map((i) => `${i.kind}:${i.value}`).join(", ")}`,
            person.lastSeen ? [" · last seen ", time(person.lastSeen, false)] : null,
          ),
        ),
      );
    }
    if (!cursor) {
      replace(
        count,
        notice(
          "info",
          page.people.length === 0
            ? "No people yet."
            : `${page.people.length}${page.nextCursor ? "+" : ""} people`,
        ),
        page.complete
          ? null
          : notice(
              "info",
              "Your items name more people than one view reads: these are the people of your newest items.",
            ),
      );
    }
    replace(
      more,
      page.nextCursor
        ? el("button", { type: "button", onclick: () => loadPage(page.nextCursor) }, "More people")
        : null,
    );
  }

  async function loadSuggestions() {
    const { suggestions } = /** @type {Suggestions} */ (await answerOf("peopleSuggestions"));
    const side = (/** @type {Suggestions["suggestions"][number]["a"]} */ s) =>
      s.person
        ? el("a", { href: peoplePage({ id: s.person.id }) }, `${s.person.name} (${s.identifier})`)
        : s.identifier;
    replace(
      queue,
      el("h2", { id: "suggestions-title" }, "Suggestions"),
      status,
      suggestions.length === 0
        ? el("p", { class: "muted" }, "Nothing waits for you.")
        : el(
            "ul",
            { class: "suggestions" },
            suggestions.map((s) =>
              el(
                "li",
                {},
                side(s.a),
                " and ",
                side(s.b),
                el("p", { class: "muted" }, `score ${s.score}: ${s.reasons.join(", ")}`),
                el(
                  "button",
                  {
                    type: "button",
                    onclick: () => act("mergePeople", { a: s.a.identifier, b: s.b.identifier }, "Merged."),
                  },
                  "Same person",
                ),
                " ",
                el(
                  "button",
                  {
                    type: "button",
                    onclick: () =>
                      act("distinctPeople", { a: s.a.identifier, b: s.b.identifier }, "Kept apart."),
                  },
                  "Different people",
                ),
              ),
            ),
          ),
    );
  }

  /**
   * @param {"mergePeople" | "distinctPeople"} op
   * @param {{ a: string, b: string }} body
   * @param {string} done
   */
  async function act(op, body, done) {
    try {
      await request(op, { body });
      replace(status, notice("info", done));
      replace(list);
      await Promise.all([loadPage(null), loadSuggestions()]);
    } catch (error) {
      replace(status, notice("error", error instanceof Error ? error.message : String(error)));
    }
  }

  await Promise.all([loadPage(null), loadSuggestions()]);
}

/**
 * @param {HTMLElement} main
 * @param {string} id
 */
async function renderPerson(main, id) {
  const status = el("div", {});
  const person = /** @type {PersonDetail} */ (await answerOf("getPerson", { params: { id } }));
  const moved =
    person.id !== id
      ? notice("info", "This person was merged or split since; showing who the id belongs to now.")
      : null;
  replace(
    main,
    el("p", {}, el("a", { href: peoplePage() }, "All people")),
    el("h1", {}, person.name, person.self ? " (you)" : ""),
    moved,
    status,
    el(
      "p",
      { class: "muted" },
      `${person.items} items`,
      person.lastSeen ? [" · last seen ", time(person.lastSeen, false)] : null,
    ),
    el("h2", {}, "Identifiers"),
    el(
      "div",
      { class: "table-scroll" },
      el(
        "table",
        {},
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            ["Identifier", "Names", "Link", "Evidence", ""].map((h) => el("th", { scope: "col" }, h)),
          ),
        ),
        el(
          "tbody",
          {},
          person.identifiers.map((i) =>
            el(
              "tr",
              {},
              el("td", {}, i.key),
              el("td", {}, i.names.join(", ")),
              el("td", {}, i.link === "scored" ? `scored ${i.confidence}` : i.link),
              el(
                "td",
                {},
                i.items
                  .slice(0, 5)
                  .flatMap((item, n) => [n ? ", " : "", el("a", { href: itemPage(item) }, `item ${n + 1}`)]),
                i.items.length > 5 ? ` and ${i.items.length - 5} more` : "",
              ),
              el(
                "td",
                {},
                person.identifiers.length > 1
                  ? el(
                      "button",
                      {
                        type: "button",
                        "aria-label": `Split ${i.key} off`,
                        onclick: async () => {
                          try {
                            await request("splitPerson", { body: { identifier: i.key } });
                            // The rest of the person stays on the page, under its id now (splitting off the
                            // identifier a person's id comes from gives the rest a new id).
                            const rest = person.identifiers.find((other) => other.key !== i.key);
                            const next = (rest && (await personHolding(rest))) ?? id;
                            history.replaceState(null, "", peoplePage({ id: next }));
                            await renderPerson(main, next);
                          } catch (error) {
                            replace(
                              status,
                              notice("error", error instanceof Error ? error.message : String(error)),
                            );
                          }
                        },
                      },
                      "Split off",
                    )
                  : null,
              ),
            ),
          ),
        ),
      ),
    ),
    el("h2", {}, "Recent items"),
    el(
      "ul",
      {},
      person.recentItems.map((item) => el("li", {}, el("a", { href: itemPage(item) }, item))),
    ),
  );
}

/**
 * The id of the person holding `identifier` now.
 * @param {{ kind: string, value: string }} identifier
 */
async function personHolding(identifier) {
  const page = /** @type {PeoplePage} */ (
    await answerOf("listPeople", { query: { q: identifier.value, limit: 200 } })
  );
  return page.people.find((p) =>
    p.identifiers.some((i) => i.kind === identifier.kind && i.value === identifier.value),
  )?.id;
}
