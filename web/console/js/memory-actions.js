/**
 * What a user does to a memory besides reading it: add a note to it (POST /items: a note of their own, or
 * shared with the team whose memory it is) and look over their dismissals, withdrawing one so the statement
 * may return with the next run (GET …/dismissals, DELETE …/dismissals/:id).
 */
/** @import { Dismissal, DismissalsList, IngestedItem } from "../../../clients/typescript/src/types.js" */
import { ApiError, memoryAnswerOf, memoryRequest, request } from "./api.js";
import { el, notice, replace, time } from "./dom.js";
import { itemPage } from "./routes.js";
import { citationList } from "./statements.js";

/** The longest note the form takes (the API's own limit on a body is larger). */
const MAX_NOTE_LENGTH = 20_000;

/**
 * A form that adds a note: the user's own, or shared with the team whose memory this is.
 * @param {string | null} team
 */
export function addNoteForm(team) {
  const title = el("input", { type: "text", id: "note-title", name: "title", maxlength: 300 });
  const body = el("textarea", {
    id: "note-body",
    name: "body",
    rows: 4,
    required: true,
    maxlength: MAX_NOTE_LENGTH,
  });
  const submit = el("button", { type: "submit" }, "Add note");
  const status = el("div", { class: "add-note-status" });
  const form = el(
    "form",
    { class: "add-note-form" },
    el("label", { for: "note-title" }, "Title (optional)"),
    title,
    el("label", { for: "note-body" }, "Note"),
    body,
    el(
      "p",
      { class: "muted" },
      team
        ? `Shared with team ${team}; the team's memory reads it with its next run.`
        : "Only you see it; your memory reads it with its next run. Write @[source:id] to link an item.",
    ),
    el("div", { class: "toolbar" }, submit),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = body.value.trim();
    if (!text) return;
    submit.disabled = true;
    try {
      const answer = await request("ingestItems", {
        body: {
          items: [
            {
              source: "console",
              externalId: crypto.randomUUID(),
              kind: "note",
              ...(title.value.trim() ? { title: title.value.trim() } : {}),
              body: text,
              occurredAt: new Date().toISOString(),
              ...(team ? { sharedWith: [`team:${team}`] } : {}),
            },
          ],
        },
      });
      const [added] = /** @type {{ items: IngestedItem[] }} */ (answer.body).items;
      const label = title.value.trim() || "the note";
      form.reset();
      replace(
        status,
        notice(
          "info",
          "Added ",
          added ? el("a", { href: itemPage(added.id) }, label) : label,
          ". The memory includes it after its next run (Refresh asks for one now).",
        ),
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      replace(status, notice("error", `Not added: ${error.message}`));
    } finally {
      submit.disabled = false;
    }
  });
  return el(
    "details",
    { class: "add-note" },
    el("summary", {}, team ? "Add a note to the team's memory" : "Add a note"),
    form,
  );
}

/**
 * The subject's dismissals, newest first, each with a Withdraw button (with the items:write scope).
 * @param {string | null} team
 * @param {boolean} canWrite
 */
export function dismissalsSection(team, canWrite) {
  const list = el("div", {});
  const status = el("div", {});
  const section = el(
    "section",
    { class: "dismissals-section", "aria-labelledby": "dismissals-title" },
    el("h2", { id: "dismissals-title" }, "Dismissed statements"),
    status,
    list,
  );

  async function load() {
    const { dismissals } = /** @type {DismissalsList} */ (await memoryAnswerOf(team, "listDismissals"));
    replace(
      list,
      dismissals.length === 0
        ? el("p", { class: "muted" }, "None: later runs may state anything the items support.")
        : el("ol", { class: "dismissals" }, dismissals.map(entry)),
    );
  }

  /** @param {Dismissal} dismissal */
  function entry(dismissal) {
    return el(
      "li",
      { class: "dismissal", "data-dismissal-id": dismissal.id },
      el("p", { class: "statement-text" }, dismissal.text),
      dismissal.citations.length > 0 ? citationList(dismissal.citations) : null,
      el(
        "p",
        { class: "muted" },
        `${dismissal.section} · dismissed `,
        time(dismissal.at),
        dismissal.reason ? ` · why: ${dismissal.reason}` : " · no reason given",
      ),
      canWrite
        ? el(
            "button",
            {
              type: "button",
              class: "secondary",
              "aria-label": `Withdraw the dismissal of: ${dismissal.text}`,
              onclick: (event) => withdraw(dismissal, /** @type {HTMLButtonElement} */ (event.currentTarget)),
            },
            "Withdraw",
          )
        : null,
    );
  }

  /**
   * @param {Dismissal} dismissal
   * @param {HTMLButtonElement} button
   */
  async function withdraw(dismissal, button) {
    button.disabled = true;
    try {
      await memoryRequest(team, "withdrawDismissal", { params: { id: dismissal.id } });
      replace(status, notice("info", "Withdrawn: the statement may return with the next run."));
      await load();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      replace(status, notice("error", error.message));
      button.disabled = false;
    }
  }

  return { element: section, load };
}
