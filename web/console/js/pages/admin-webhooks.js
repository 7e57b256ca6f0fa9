/**
 * Admin: the workspace's webhook endpoints. Register one (its signing secret is shown once, right after), send
 * it a test event, rotate its secret (the new one shown once; the old one keeps signing for a grace period),
 * disable or re-enable it (an endpoint the service disabled says why), read its deliveries log, delete it.
 */
/** @import { Webhook, WebhookCreated, WebhookDeliveriesList, WebhookSecretRotated, WebhooksList } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf, request } from "../api.js";
import { el, labelled, notice, replace, time } from "../dom.js";

/**
 * The event types an endpoint may subscribe to, read from the contract (the answer schema of POST /webhooks),
 * so a new event shows here without a change; `webhook.test` is sent by the Test button, not subscribed to.
 * @returns {Promise<string[]>}
 */
async function subscribableEvents() {
  /** @type {{ paths?: Record<string, { post?: { responses?: Record<string, { content?: Record<string, { schema?: { properties?: { events?: { items?: { enum?: unknown[] } } } } }> }> } }> }} */
  const contract = await answerOf("openapi");
  const schema =
    contract.paths?.["/webhooks"]?.post?.responses?.["201"]?.content?.["application/json"]?.schema;
  const values = schema?.properties?.events?.items?.enum ?? [];
  return values.filter((v) => typeof v === "string" && v !== "webhook.test").map(String);
}

/**
 * A secret shown once, with what to do with it.
 * @param {string} what
 * @param {string} secret
 */
const secretNotice = (what, secret) =>
  notice(
    "warning",
    el("strong", {}, what),
    " Copy the signing secret now: it is not shown again. ",
    el("code", { class: "webhook-secret" }, secret),
  );

/** The columns, also each cell's label when a narrow window shows a row as a card. */
const WEBHOOK_COLUMNS = ["Endpoint", "Events", "State", "Created", ""];

/** @param {PageContext} context */
export async function renderWebhooks({ main }) {
  const status = el("div", {});
  const list = el("tbody", {});
  const log = el("section", { "aria-label": "Deliveries" });
  const url = el("input", {
    type: "url",
    id: "webhook-url",
    name: "url",
    required: true,
    placeholder: "https://hooks.example.com/memory",
  });
  const description = el("input", {
    type: "text",
    id: "webhook-description",
    name: "description",
    maxlength: 500,
  });
  const events = el("fieldset", { class: "kinds" }, el("legend", {}, "Events"));
  const form = el(
    "form",
    { class: "stacked-form" },
    el("h2", {}, "Register an endpoint"),
    el("label", { for: "webhook-url" }, "URL (https)"),
    url,
    el("label", { for: "webhook-description" }, "Description (optional)"),
    description,
    events,
    el("button", { type: "submit" }, "Register endpoint"),
  );
  replace(
    main,
    el("h1", {}, "Webhooks"),
    el(
      "p",
      { class: "muted" },
      "Endpoints told when a memory changes: ids, versions and counts, never text; signed as Standard Webhooks specify.",
    ),
    status,
    el(
      "div",
      { class: "table-scroll" },
      el(
        "table",
        { class: "stack" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            WEBHOOK_COLUMNS.map((h) => el("th", { scope: "col" }, h)),
          ),
        ),
        list,
      ),
    ),
    log,
    form,
  );

  for (const event of await subscribableEvents()) {
    const id = `event-${event.replace(/\W/g, "-")}`;
    events.append(
      el(
        "label",
        { class: "check", for: id },
        el("input", {
          type: "checkbox",
          id,
          name: "events",
          value: event,
          checked: event === "memory.updated",
        }),
        event,
      ),
    );
  }

  /** @param {Webhook} hook */
  function stateOf(hook) {
    if (hook.enabled)
      return el(
        "span",
        {},
        hook.failingSince ? "enabled, failing since " : "enabled",
        time(hook.failingSince),
      );
    return el(
      "span",
      { class: "badge badge-warning" },
      hook.disabledReason ? `disabled by the service: ${hook.disabledReason}` : "disabled",
    );
  }

  /** @param {Webhook} hook */
  function row(hook) {
    /**
     * @param {string} label
     * @param {string} aria
     * @param {() => void} onclick
     */
    const button = (label, aria, onclick) =>
      el("button", { type: "button", "aria-label": aria, onclick }, label);
    return el(
      "tr",
      {},
      el(
        "td",
        {},
        el("code", {}, hook.url),
        hook.description ? el("div", { class: "muted" }, hook.description) : null,
      ),
      el("td", {}, hook.events.join(", ")),
      el("td", {}, stateOf(hook)),
      el("td", {}, time(hook.createdAt)),
      el(
        "td",
        { class: "actions" },
        button("Deliveries", `Deliveries of ${hook.url}`, () => void showDeliveries(hook)),
        hook.enabled
          ? button(
              "Test",
              `Send a test event to ${hook.url}`,
              () =>
                void act(async () => {
                  await request("testWebhook", { params: { id: hook.id } });
                  await showDeliveries(hook);
                }, `A test event is on its way to ${hook.url}; its delivery shows below.`),
            )
          : null,
        button("Rotate secret", `Rotate the secret of ${hook.url}`, () => {
          if (
            !confirm(
              `Rotate the signing secret of ${hook.url}? The current one keeps signing for a grace period.`,
            )
          )
            return;
          void act(async () => {
            const rotated = /** @type {WebhookSecretRotated} */ (
              await answerOf("rotateWebhookSecret", { params: { id: hook.id } })
            );
            return secretNotice(
              `New secret for ${hook.url}; the previous one signs until ${new Date(rotated.previousSecretValidUntil).toLocaleString()}.`,
              rotated.secret,
            );
          });
        }),
        button(
          hook.enabled ? "Disable" : "Enable",
          `${hook.enabled ? "Disable" : "Enable"} ${hook.url}`,
          () =>
            void act(
              () => request("updateWebhook", { params: { id: hook.id }, body: { enabled: !hook.enabled } }),
              hook.enabled ? `Disabled ${hook.url}.` : `Enabled ${hook.url}.`,
            ),
        ),
        button("Delete", `Delete ${hook.url}`, () => {
          if (
            !confirm(
              `Delete the endpoint ${hook.url} and its deliveries log? Deliveries still queued are dropped.`,
            )
          )
            return;
          void act(async () => {
            await request("deleteWebhook", { params: { id: hook.id } });
            replace(log);
          }, `Deleted ${hook.url}.`);
        }),
      ),
    );
  }

  async function load() {
    const { webhooks } = /** @type {WebhooksList} */ (await answerOf("listWebhooks"));
    replace(
      list,
      webhooks.length === 0
        ? el("tr", {}, el("td", { colspan: 5, class: "muted" }, "No endpoint yet."))
        : webhooks.map((hook) => labelled(row(hook), WEBHOOK_COLUMNS)),
    );
  }

  /** @param {Webhook} hook */
  async function showDeliveries(hook) {
    const { deliveries } = /** @type {WebhookDeliveriesList} */ (
      await answerOf("listWebhookDeliveries", { params: { id: hook.id } })
    );
    replace(
      log,
      el("h2", {}, "Deliveries to ", el("code", {}, hook.url)),
      el(
        "div",
        { class: "toolbar" },
        el("button", { type: "button", onclick: () => void showDeliveries(hook) }, "Refresh deliveries"),
      ),
      deliveries.length === 0
        ? el("p", { class: "muted" }, "No delivery yet.")
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
                  ["Created", "Event", "Status", "Attempts", "Answer", "Duration", "Next attempt"].map((h) =>
                    el("th", { scope: "col" }, h),
                  ),
                ),
              ),
              el(
                "tbody",
                {},
                deliveries.map((d) =>
                  el(
                    "tr",
                    {},
                    el("td", {}, time(d.createdAt)),
                    el("td", {}, d.eventType),
                    el("td", {}, d.status),
                    el("td", {}, String(d.attempts)),
                    el(
                      "td",
                      {},
                      d.lastStatus === null ? "" : `HTTP ${d.lastStatus}`,
                      d.lastError ? el("div", {}, d.lastError) : null,
                      d.lastResponse ? el("div", { class: "muted" }, d.lastResponse) : null,
                    ),
                    el("td", {}, d.durationMs === null ? "—" : `${d.durationMs} ms`),
                    el("td", {}, time(d.nextAttemptAt)),
                  ),
                ),
              ),
            ),
          ),
    );
  }

  /**
   * Runs a change, then shows what it says (a message, or the notice it returns) and reloads the list.
   * @param {() => Promise<unknown>} change
   * @param {string} [done]
   */
  async function act(change, done) {
    try {
      const shown = await change();
      replace(status, shown instanceof Node ? shown : notice("info", done ?? "Done."));
      await load();
    } catch (error) {
      replace(status, notice("error", error instanceof Error ? error.message : String(error)));
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = [...events.querySelectorAll("input:checked")].map(
      (input) => /** @type {HTMLInputElement} */ (input).value,
    );
    void act(async () => {
      const created = /** @type {WebhookCreated} */ (
        await answerOf("createWebhook", {
          body: {
            url: url.value,
            events: chosen,
            ...(description.value ? { description: description.value } : {}),
          },
        })
      );
      url.value = "";
      description.value = "";
      return secretNotice(`Registered ${created.url}.`, created.secret);
    });
  });
  await load();
}
