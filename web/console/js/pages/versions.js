/**
 * The versions page: the memory's timeline (newest first), what one version changed against the one
 * before it (added, removed with the reason, kept), and the memory as it was at a chosen date.
 */
/** @import { VersionsPage, PastMemory } from "../../../../clients/typescript/src/types.js" */
/** @import { operations } from "../../../../clients/typescript/src/generated/openapi.js" */
/** @import { PageContext } from "../pages.js" */
import { ApiError, memoryAnswerOf } from "../api.js";
import { fakeModel } from "../contract.js";
import { el, notice, replace, time } from "../dom.js";
import { memoryPage, versionsPage } from "../routes.js";
import { bySection, fakeBadge, statementItem } from "../statements.js";

/** @typedef {operations["diffVersion"]["responses"][200]["content"]["application/json"]} VersionDiff */

const PAGE_SIZE = 20;

/** Why a statement left, as people say it. */
const REMOVAL_REASONS = {
  superseded: "superseded by a newer item",
  unsupported: "its cited items did not support it",
  dropped: "the generator left it out",
  redacted: "a cited item was withdrawn",
  dismissed: "dismissed by you",
};

/** @param {PageContext} context */
export async function renderVersions({ main, subject, params }) {
  const selected = params.get("version");
  const diff = el("section", { class: "diff", "aria-labelledby": "diff-title" });
  const timeline = el("ol", { class: "timeline" });
  const more = el("div", {});
  const fake = await fakeModel();
  const asOf = asOfForm(subject.team, fake);

  replace(
    main,
    el("h1", {}, `${subject.label} memory: versions`),
    el("p", {}, el("a", { href: memoryPage(subject.team) }, "Back to the memory")),
    selected ? diff : null,
    el(
      "section",
      { "aria-labelledby": "timeline-title" },
      el("h2", { id: "timeline-title" }, "Timeline"),
      timeline,
      more,
    ),
    asOf,
  );

  /** @param {string | null} cursor */
  async function loadPage(cursor) {
    const page = /** @type {VersionsPage} */ (
      await memoryAnswerOf(subject.team, "listVersions", { query: { limit: PAGE_SIZE, cursor } })
    );
    for (const version of page.versions) {
      timeline.append(
        el(
          "li",
          { class: version.id === selected ? "selected" : null },
          time(version.createdAt),
          " ",
          version.current === true ? el("span", { class: "badge" }, "current") : null,
          version.takenOut.dismissed > 0
            ? el("span", { class: "badge badge-dismissed" }, `${version.takenOut.dismissed} dismissed`)
            : null,
          version.takenOut.redacted > 0
            ? el("span", { class: "badge badge-warning" }, `${version.takenOut.redacted} redacted`)
            : null,
          el(
            "span",
            { class: "muted" },
            ` ${version.statementCount} statements · ${version.generatorModel} judged by ${version.judgeModel} `,
          ),
          fake ? fakeBadge() : null,
          " · ",
          el(
            "a",
            {
              href: versionsPage(subject.team, version.id),
              "aria-current": version.id === selected ? "page" : null,
            },
            `Changes in ${version.id.slice(0, 8)}`,
          ),
        ),
      );
    }
    if (page.versions.length === 0 && !cursor) timeline.append(el("li", {}, "No version yet."));
    replace(
      more,
      page.nextCursor
        ? el("button", { type: "button", onclick: () => loadPage(page.nextCursor) }, "Older versions")
        : null,
    );
  }

  if (selected) {
    const changes = /** @type {VersionDiff} */ (
      await memoryAnswerOf(subject.team, "diffVersion", { params: { id: selected } })
    );
    replace(diff, ...diffView(changes, fake));
  }
  await loadPage(null);
}

/**
 * @param {VersionDiff} changes
 * @param {boolean} fake whether the fake LLM wrote the memories here
 */
function diffView(changes, fake) {
  return [
    el(
      "h2",
      { id: "diff-title" },
      `Changes in version ${changes.to.slice(0, 8)}`,
      fake ? [" ", fakeBadge()] : null,
    ),
    el(
      "p",
      { class: "muted" },
      changes.from
        ? `Against version ${changes.from.slice(0, 8)}.`
        : "The first version: everything in it is new.",
    ),
    el("h3", {}, `Added (${changes.added.length})`),
    el(
      "ul",
      { class: "statements diff-added" },
      changes.added.map((s) => statementItem(s)),
    ),
    el("h3", {}, `Removed (${changes.removed.length})`),
    el(
      "ul",
      { class: "statements diff-removed" },
      changes.removed.map(({ statement, reason, dismissal }) =>
        statementItem(
          statement,
          [],
          [
            el(
              "p",
              { class: "removal-reason" },
              `Removed: ${REMOVAL_REASONS[reason]}`,
              dismissal
                ? [" ", time(dismissal.at), dismissal.reason ? ` (why: ${dismissal.reason})` : ""]
                : "",
              reason === "dismissed" && !dismissal ? " (the dismissal was withdrawn since)" : "",
            ),
          ],
        ),
      ),
    ),
    el(
      "details",
      {},
      el("summary", {}, `Kept (${changes.kept.length})`),
      el(
        "ul",
        { class: "statements diff-kept" },
        changes.kept.map((s) => statementItem(s)),
      ),
    ),
  ];
}

/**
 * @param {string | null} team
 * @param {boolean} fake whether the fake LLM wrote the memories here
 */
function asOfForm(team, fake) {
  const input = el("input", { type: "datetime-local", id: "as-of", name: "asOf", required: true });
  const result = el("div", {});
  const form = el(
    "form",
    { class: "inline-form" },
    el("label", { for: "as-of" }, "Date and time"),
    input,
    el("button", { type: "submit" }, "Show"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const at = new Date(input.value);
    if (Number.isNaN(at.getTime())) return;
    try {
      const past = /** @type {PastMemory} */ (
        await memoryAnswerOf(team, "getMemory", { query: { asOf: at.toISOString(), format: "json" } })
      );
      replace(
        result,
        el(
          "p",
          { class: "muted" },
          `Version ${past.version.slice(0, 8)}, written `,
          time(past.createdAt),
          past.current ? " (still current)" : "",
          fake ? [" ", fakeBadge()] : null,
        ),
        bySection(past.statements ?? [], (s) => statementItem(s), "h3"),
      );
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) replace(result, notice("info", error.message));
      else throw error;
    }
  });
  return el(
    "section",
    { "aria-labelledby": "as-of-title" },
    el("h2", { id: "as-of-title" }, "The memory as of a date"),
    form,
    result,
  );
}
