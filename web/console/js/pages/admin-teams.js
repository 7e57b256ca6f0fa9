/** Admin: the workspace's teams; create or replace one (name and whole membership), delete one. */
/** @import { TeamsList } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf, request } from "../api.js";
import { el, labelled, notice, replace, time } from "../dom.js";
import { memoryPage } from "../routes.js";

/** The columns, also each cell's label when a narrow window shows a row as a card. */
const TEAM_COLUMNS = ["Team", "Members", "Updated", ""];

/** @param {PageContext} context */
export async function renderAdminTeams({ main }) {
  const status = el("div", {});
  const list = el("tbody", {});
  const id = el("input", {
    type: "text",
    id: "team-id",
    name: "id",
    required: true,
    pattern: "[A-Za-z0-9][A-Za-z0-9._\\-]{0,63}",
  });
  const name = el("input", { type: "text", id: "team-name", name: "name", required: true });
  const members = el("input", { type: "text", id: "team-members", name: "members" });
  const form = el(
    "form",
    { class: "stacked-form" },
    el("h2", {}, "Create or replace a team"),
    el("label", { for: "team-id" }, "Team id"),
    id,
    el("label", { for: "team-name" }, "Name"),
    name,
    el("label", { for: "team-members" }, "Members (user ids, comma-separated)"),
    members,
    el("button", { type: "submit" }, "Save team"),
  );
  replace(
    main,
    el("h1", {}, "Teams (admin)"),
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
            TEAM_COLUMNS.map((h) => el("th", { scope: "col" }, h)),
          ),
        ),
        list,
      ),
    ),
    form,
  );

  async function load() {
    const { teams } = /** @type {TeamsList} */ (await answerOf("listTeams"));
    replace(
      list,
      teams.map((team) =>
        el(
          "tr",
          {},
          el(
            "td",
            {},
            el("a", { href: memoryPage(team.id) }, team.name),
            el("span", { class: "muted" }, ` (${team.id})`),
          ),
          el("td", {}, team.members.join(", ")),
          el("td", {}, time(team.updatedAt)),
          el(
            "td",
            { class: "actions" },
            el(
              "button",
              {
                type: "button",
                onclick: () => {
                  id.value = team.id;
                  name.value = team.name;
                  members.value = team.members.join(", ");
                  name.focus();
                },
              },
              "Edit",
            ),
            el(
              "button",
              {
                type: "button",
                "aria-label": `Delete team ${team.id}`,
                onclick: () => {
                  if (!confirm(`Delete team ${team.id}? Its memory and shares go with it.`)) return;
                  void act(() => request("deleteTeam", { params: { team: team.id } }), `Deleted ${team.id}.`);
                },
              },
              "Delete",
            ),
          ),
        ),
      ),
    );
    for (const row of list.rows) labelled(row, TEAM_COLUMNS);
  }

  /**
   * @param {() => Promise<unknown>} change
   * @param {string} done
   */
  async function act(change, done) {
    try {
      await change();
      replace(status, notice("info", done));
      await load();
    } catch (error) {
      replace(status, notice("error", error instanceof Error ? error.message : String(error)));
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = {
      name: name.value,
      members: members.value
        .split(",")
        .map((m) => m.trim())
        .filter(Boolean),
    };
    void act(() => request("putTeam", { params: { team: id.value }, body }), `Saved ${id.value}.`);
  });
  await load();
}
