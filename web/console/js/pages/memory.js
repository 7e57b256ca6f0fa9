/**
 * The memory page: the user's (or a team's) memory, statement by statement with its citations; what state
 * it is in (generating with the run's progress, empty, stale, failing with the reason); refresh; dismiss;
 * add a note; the dismissals, each of which can be withdrawn. Written by the fake LLM (dev), it says so.
 */
/** @import { MemoryDocument, EmptyMemory, Generating, Statement, Run, RunsPage } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { ApiError, memoryAnswerOf, memoryRequest } from "../api.js";
import { fakeModel } from "../contract.js";
import { el, notice, replace, time } from "../dom.js";
import { addNoteForm, dismissalsSection } from "../memory-actions.js";
import { runsPage, versionsPage } from "../routes.js";
import { hasScope } from "../session.js";
import { bySection, fakeBadge, statementItem } from "../statements.js";

/** How long one poll of a memory being generated holds (the API's ?wait=, seconds). */
const WAIT_SECONDS = 5;
/** Polls before the page stops following a run (about five minutes). */
const MAX_POLLS = 60;
/** How often a refresh's run is looked at. */
const FOLLOW_INTERVAL_MS = 2500;
/** @type {readonly string[]} */
const FINISHED = ["succeeded", "rejected", "failed"];

/** @param {PageContext} context */
export async function renderMemory({ main, subject, who }) {
  const canWrite = hasScope(who, "items:write");
  const status = el("div", { class: "memory-status" });
  const body = el("div", { class: "memory-body" });
  const refresh = el("button", { type: "button" }, "Refresh");
  const dialog = dismissDialog();
  const fake = await fakeModel();
  const dismissals = dismissalsSection(subject.team, canWrite);

  replace(
    main,
    el("h1", {}, subject.team ? `${subject.label}: memory` : "Your memory"),
    el(
      "div",
      { class: "toolbar" },
      refresh,
      el("a", { href: versionsPage(subject.team) }, "Versions"),
      el("a", { href: runsPage(subject.team) }, "Runs"),
    ),
    canWrite ? addNoteForm(subject.team) : null,
    status,
    body,
    dismissals.element,
    dialog.element,
  );

  /** @param {string} text */
  const say = (text) => replace(status, notice("info", text));

  async function load() {
    for (let poll = 0; poll < MAX_POLLS; poll++) {
      let answer;
      try {
        answer = await memoryRequest(subject.team, "getMemory", {
          query: { format: "json", ...(poll > 0 ? { wait: WAIT_SECONDS } : {}) },
        });
      } catch (error) {
        if (error instanceof ApiError && error.status === 503 && error.code !== "database_unavailable") {
          replace(body);
          replace(status, failing(error));
          return;
        }
        throw error;
      }
      if (answer.status === 202) {
        const generating = /** @type {Generating} */ (answer.body);
        replace(body);
        replace(status, await progress(subject.team, generating));
        continue;
      }
      const memory = /** @type {MemoryDocument | EmptyMemory} */ (answer.body);
      if ("empty" in memory) {
        replace(body);
        replace(
          status,
          notice(
            "info",
            "Nothing to remember yet: no item is visible to this memory. Items added through the API appear here once a run has read them.",
          ),
        );
        return;
      }
      show(memory);
      return;
    }
    replace(status, notice("warning", "Still generating. Reload the page later to see the memory."));
  }

  /** @param {MemoryDocument} memory */
  function show(memory) {
    replace(
      status,
      el(
        "p",
        { class: "muted" },
        "Generated ",
        time(memory.generatedAt),
        ` · version ${memory.version.slice(0, 8)} · ${memory.statements?.length ?? 0} statements`,
        fake ? [" ", fakeBadge()] : null,
      ),
      memory.stale
        ? notice(
            "warning",
            "Stale: this memory is older than the freshness window. A refresh has been asked for; this is the last accepted memory.",
          )
        : null,
    );
    const statements = memory.statements ?? [];
    replace(
      body,
      statements.length === 0
        ? notice("info", "This memory has no statements.")
        : bySection(statements, (statement) =>
            statementItem(
              statement,
              canWrite
                ? [
                    el(
                      "button",
                      {
                        type: "button",
                        class: "link-button danger",
                        "aria-label": `Dismiss: ${statement.text}`,
                        onclick: () => dialog.open(statement, () => dismiss(statement)),
                      },
                      "Dismiss",
                    ),
                  ]
                : [],
            ),
          ),
    );
  }

  /** @param {Statement} statement */
  async function dismiss(statement) {
    const reason = dialog.reason();
    await memoryRequest(subject.team, "dismissStatement", {
      params: { id: statement.id },
      body: reason ? { reason } : {},
    });
    say("Dismissed. Later runs will not state it again.");
    await dismissals.load();
    const answer = await memoryRequest(subject.team, "getMemory", { query: { format: "json" } });
    if (answer.status === 200 && !("empty" in /** @type {object} */ (answer.body))) {
      const memory = /** @type {MemoryDocument} */ (answer.body);
      show(memory);
      status.prepend(notice("info", "Dismissed. Later runs will not state it again."));
    }
  }

  /** Asks for a run now and follows it (the ledger's newest run) until it ends, then shows the memory. */
  async function refreshAndFollow() {
    const before = await newestRun(subject.team);
    await memoryRequest(subject.team, "refreshMemory");
    for (let poll = 0; poll < MAX_POLLS * 2; poll++) {
      const run = await newestRun(subject.team);
      const ours = run && run.id !== before?.id ? run : null;
      if (ours && FINISHED.includes(ours.status)) {
        await load();
        status.prepend(
          notice(
            ours.status === "succeeded" ? "info" : "warning",
            `The refresh ${ours.status}${typeof ours.errorCode === "string" ? ` (${ours.errorCode})` : ""}.`,
          ),
        );
        return;
      }
      replace(status, progressView("Refreshing the memory…", ours, "Queued."));
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
    }
    replace(status, notice("warning", "The run is still going. Reload the page later to see the memory."));
  }

  refresh.addEventListener("click", async () => {
    refresh.disabled = true;
    try {
      await refreshAndFollow();
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) {
        replace(status, notice("warning", `Not now: ${error.message}`));
      } else if (error instanceof ApiError) replace(status, notice("error", error.message));
      else throw error;
    } finally {
      refresh.disabled = false;
    }
  });

  await load();
  await dismissals.load();
}

/**
 * The newest run of the memory's ledger (null: none yet).
 * @param {string | null} team
 */
async function newestRun(team) {
  const { runs } = /** @type {RunsPage} */ (await memoryAnswerOf(team, "listRuns", { query: { limit: 1 } }));
  return runs[0] ?? null;
}

/**
 * A memory being generated: an indeterminate progress bar and what the newest run is doing.
 * @param {string | null} team
 * @param {Generating} generating
 */
async function progress(team, generating) {
  return progressView(
    "Generating the memory…",
    await newestRun(team),
    `Queued; checking again in ${generating.retryAfter} s.`,
  );
}

/**
 * @param {string} label
 * @param {Run | null} run the run being followed, once the ledger has it
 * @param {string} waiting what to say before it has
 */
function progressView(label, run, waiting) {
  const doing = run
    ? `Run ${run.status}${run.status === "running" ? `: ${run.turns ?? 0} turns, ${run.toolCalls ?? 0} tool calls so far` : ""} (attempt ${run.attempt}).`
    : waiting;
  return el(
    "div",
    { class: "generating", role: "status" },
    el("label", { for: "generation-progress" }, label),
    el("progress", { id: "generation-progress" }),
    el("p", { class: "muted" }, doing),
  );
}

/**
 * Why there is no memory yet (503 generation_failing): the reason in words, the next try in local time, and
 * what the user can do about it.
 * @param {ApiError} error
 */
function failing(error) {
  const details = error.details ?? {};
  const lastError = typeof details.lastErrorCode === "string" ? details.lastErrorCode : null;
  const next = typeof details.nextAttemptAt === "string" ? new Date(details.nextAttemptAt) : null;
  return notice(
    "error",
    el("strong", {}, "Memory generation is failing. "),
    error.message,
    lastError ? ` Last run: ${lastError}.` : "",
    ` (${error.code})`,
    el(
      "p",
      {},
      next
        ? `Next try: ${next.toLocaleString()}. Meanwhile you can add material (a note or an import), dismiss a wrong statement, or wait.`
        : "No try is scheduled: adding material, a refresh, or the daily sweep starts one.",
    ),
  );
}

/** The confirmation asked before a dismissal, with the reason later runs are shown. */
function dismissDialog() {
  const text = el("blockquote", { class: "dismiss-text" });
  const reason = el("textarea", { id: "dismiss-reason", name: "reason", rows: 3, maxlength: 1000 });
  const confirm = el("button", { type: "submit", value: "dismiss", class: "danger" }, "Dismiss statement");
  const error = el("div", {});
  const form = el(
    "form",
    { method: "dialog" },
    el("h2", { id: "dismiss-title" }, "Dismiss this statement?"),
    text,
    el("p", {}, "It leaves the memory now, and later runs will not state it again."),
    el("label", { for: "dismiss-reason" }, "Why is it wrong? (optional)"),
    reason,
    error,
    el(
      "div",
      { class: "toolbar" },
      confirm,
      el(
        "button",
        { type: "button", value: "cancel", class: "secondary", onclick: () => element.close() },
        "Cancel",
      ),
    ),
  );
  const element = el("dialog", { "aria-labelledby": "dismiss-title" }, form);
  /** @type {(() => Promise<void>) | null} */
  let onConfirm = null;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!onConfirm) return;
    confirm.disabled = true;
    try {
      await onConfirm();
      element.close();
    } catch (failure) {
      replace(error, notice("error", failure instanceof Error ? failure.message : String(failure)));
    } finally {
      confirm.disabled = false;
    }
  });
  return {
    element,
    reason: () => reason.value.trim(),
    /**
     * @param {Statement} statement
     * @param {() => Promise<void>} then
     */
    open(statement, then) {
      replace(text, statement.text);
      reason.value = "";
      replace(error);
      onConfirm = then;
      element.showModal();
      reason.focus();
    },
  };
}
