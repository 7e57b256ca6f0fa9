/**
 * The teams page: the workspace's teams, the user's own first; each of the user's teams links to its
 * memory, versions and runs (the API serves a team's memory to its members only).
 */
/** @import { TeamsList } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf } from "../api.js";
import { el, notice, replace } from "../dom.js";
import { memoryPage, runsPage, versionsPage } from "../routes.js";

/** @param {PageContext} context */
export async function renderTeams({ main, who }) {
  const { teams } = /** @type {TeamsList} */ (await answerOf("listTeams"));
  const user = who?.user ?? "";
  const mine = teams.filter((team) => team.members.includes(user));
  const others = teams.filter((team) => !team.members.includes(user));
  replace(
    main,
    el("h1", {}, "Teams"),
    el("h2", {}, "Your teams"),
    mine.length === 0
      ? notice("info", "You belong to no team.")
      : el(
          "ul",
          { class: "cards" },
          mine.map((team) =>
            el(
              "li",
              { class: "card" },
              el("h3", {}, team.name),
              el(
                "p",
                { class: "muted" },
                `${team.id} · ${team.members.length} members: ${team.members.join(", ")}`,
              ),
              el(
                "p",
                { class: "toolbar" },
                el("a", { href: memoryPage(team.id) }, "Memory"),
                el("a", { href: versionsPage(team.id) }, "Versions"),
                el("a", { href: runsPage(team.id) }, "Runs"),
              ),
            ),
          ),
        ),
    others.length > 0 ? el("h2", {}, "Other teams in the workspace") : null,
    others.length > 0
      ? el(
          "ul",
          { class: "plain" },
          others.map((team) => el("li", {}, `${team.name} (${team.id}) · ${team.members.length} members`)),
        )
      : null,
  );
}
