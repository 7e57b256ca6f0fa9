/**
 * The import page: choose an export file (mail, calendar, contacts, a Slack export, transcripts, notes,
 * GitHub or ChatGPT) and upload it; the service reads it off the request path, and the page follows the
 * import until it is done or failed, with how far it got, its counts and its errors. Its address names the
 * import (`?id=`), so a reload keeps following it; the caller's recent imports are listed below.
 */
/** @import { Import, ImportsList } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf } from "../api.js";
import { importFormats } from "../contract.js";
import { el, notice, replace, time } from "../dom.js";

const POLL_MS = 1000;
/** The upload limit of POST /imports. */
const MAX_MB = 25;

/** @param {string | null} id */
const importPage = (id) => `/console/import${id ? `?id=${encodeURIComponent(id)}` : ""}`;

/** @param {PageContext} context */
export async function renderImport({ main, params }) {
  const formats = await importFormats();
  const status = el("section", { "aria-labelledby": "import-status-heading", class: "import-status" });
  const recent = el("section", { "aria-labelledby": "recent-imports-heading" });

  const fileInput = el("input", { type: "file", id: "import-file", name: "file", required: true });
  const formatSelect = el(
    "select",
    { id: "import-format", name: "format" },
    el("option", { value: "" }, "tell from the file name"),
    formats.map((f) => el("option", { value: f }, f)),
  );
  const button = el("button", { type: "submit" }, "Upload and import");
  const form = el(
    "form",
    { class: "filters", "aria-label": "Upload an export file" },
    el(
      "div",
      { class: "field" },
      el("label", { for: "import-file" }, `File (up to ${MAX_MB} MB)`),
      fileInput,
    ),
    el("div", { class: "field" }, el("label", { for: "import-format" }, "Format"), formatSelect),
    button,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const file = /** @type {HTMLInputElement} */ (fileInput).files?.[0];
    if (!file) return;
    const format = /** @type {HTMLSelectElement} */ (formatSelect).value;
    /** @type {HTMLButtonElement} */ (button).disabled = true;
    replace(status, notice("info", `Uploading ${file.name}…`));
    answerOf(/** @type {const} */ ("createImport"), {
      query: {
        name: file.name,
        format: format || undefined,
        modifiedAt: new Date(file.lastModified).toISOString(),
      },
      file,
    })
      .then((job) => {
        history.replaceState(null, "", importPage(/** @type {Import} */ (job).id));
        return follow(/** @type {Import} */ (job).id, status, recent);
      })
      .catch((/** @type {unknown} */ error) =>
        replace(
          status,
          notice(
            "error",
            `The upload was refused: ${error instanceof Error ? error.message : String(error)}`,
          ),
        ),
      )
      .finally(() => {
        /** @type {HTMLButtonElement} */ (button).disabled = false;
      });
  });

  replace(
    main,
    el("h1", {}, "Import"),
    el(
      "p",
      { class: "muted" },
      "Upload an export (a mailbox, a calendar, contacts, a Slack export .zip, a transcript, a note, GitHub issues " +
        "or a ChatGPT conversations.json). Its items become yours; importing the same file again changes nothing.",
    ),
    form,
    status,
    recent,
  );
  const id = params.get("id");
  await Promise.all([id ? follow(id, status, recent) : Promise.resolve(), showRecent(recent)]);
}

/**
 * Shows the import and polls it until it is done or failed.
 * @param {string} id
 * @param {HTMLElement} status
 * @param {HTMLElement} recent
 */
async function follow(id, status, recent) {
  for (;;) {
    /** @type {Import} */
    const job = await answerOf("getImport", { params: { id } });
    replace(status, ...importView(job));
    if (job.status === "done" || job.status === "failed") {
      await showRecent(recent);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** @param {Import} job */
function importView(job) {
  const { summary } = job;
  const ended = job.status === "done" || job.status === "failed";
  /** @type {[string, number][]} */
  const counts = [
    ["Records read", summary.records],
    ["Items", summary.items],
    ["Created", summary.created],
    ["Updated", summary.updated],
    ["Unchanged", summary.unchanged],
    ["Skipped", summary.skipped],
    ["Refused", summary.rejected],
    ["Errors", summary.errors.length],
  ];
  const skipped = Object.entries(summary.skippedReasons);
  return [
    el("h2", { id: "import-status-heading" }, `${job.name} (${job.format})`),
    job.status === "failed"
      ? notice("error", `Failed: ${job.failure ?? "no reason given"}`)
      : notice(
          "info",
          ended
            ? `Done: ${summary.items} items (${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged).`
            : `${job.status === "running" ? "Importing" : "Waiting to import"}: ${summary.records} records read so far…`,
        ),
    ended ? null : el("progress", { "aria-label": "Import in progress" }),
    el(
      "div",
      { class: "table-scroll" },
      el(
        "table",
        { class: "import-counts", "data-status": job.status },
        el("caption", {}, `Status: ${job.status}`),
        el(
          "tbody",
          {},
          counts.map(([label, value]) =>
            el("tr", {}, el("th", { scope: "row" }, label), el("td", {}, String(value))),
          ),
        ),
      ),
    ),
    skipped.length > 0
      ? el(
          "details",
          {},
          el("summary", {}, `Skipped, by reason (${summary.skipped})`),
          el(
            "ul",
            {},
            skipped.map(([reason, n]) => el("li", {}, `${reason}: ${n}`)),
          ),
        )
      : null,
    summary.errors.length > 0
      ? el(
          "details",
          { open: true },
          el("summary", {}, `Errors (${summary.errors.length})`),
          el(
            "ul",
            { class: "import-errors" },
            summary.errors.slice(0, 200).map((e) => el("li", {}, `${e.file}, ${e.position}: ${e.message}`)),
          ),
        )
      : null,
  ];
}

/** @param {HTMLElement} recent */
async function showRecent(recent) {
  /** @type {ImportsList} */
  const { imports } = await answerOf("listImports");
  replace(
    recent,
    el("h2", { id: "recent-imports-heading" }, "Your imports"),
    imports.length === 0
      ? el("p", { class: "muted" }, "None yet.")
      : el(
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
                ["File", "Format", "Status", "Items", "Uploaded"].map((h) => el("th", { scope: "col" }, h)),
              ),
            ),
            el(
              "tbody",
              {},
              imports.map((job) =>
                el(
                  "tr",
                  {},
                  el("td", {}, el("a", { href: importPage(job.id) }, job.name)),
                  el("td", {}, job.format),
                  el("td", {}, job.status),
                  el("td", {}, String(job.summary.items)),
                  el("td", {}, time(job.createdAt)),
                ),
              ),
            ),
          ),
        ),
  );
}
