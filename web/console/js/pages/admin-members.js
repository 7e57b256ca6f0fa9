/** Admin: the workspace's members; add one, remove one (their token is then refused until added back). */
/** @import { MembersList } from "../../../../clients/typescript/src/types.js" */
/** @import { PageContext } from "../pages.js" */
import { answerOf, request } from "../api.js";
import { el, labelled, notice, replace, time } from "../dom.js";

/** The columns, also each cell's label when a narrow window shows a row as a card. */
const MEMBER_COLUMNS = ["User", "Joined", "State", ""];

/** @param {PageContext} context */
export async function renderMembers({ main, who }) {
  const status = el("div", {});
  const body = el("tbody", {});
  const input = el("input", {
    type: "text",
    id: "new-member",
    name: "user",
    required: true,
    autocomplete: "off",
  });
  const form = el(
    "form",
    { class: "inline-form" },
    el("label", { for: "new-member" }, "User id"),
    input,
    el("button", { type: "submit" }, "Add member"),
  );
  const workspace = el("p", { class: "muted" });
  replace(
    main,
    el("h1", {}, "Members"),
    workspace,
    form,
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
            MEMBER_COLUMNS.map((h) => el("th", { scope: "col" }, h)),
          ),
        ),
        body,
      ),
    ),
  );

  async function load() {
    const list = /** @type {MembersList} */ (await answerOf("listMembers"));
    replace(workspace, `Workspace ${list.workspace} · ${list.members.length} members`);
    replace(
      body,
      list.members.map((member) =>
        el(
          "tr",
          {},
          el("td", {}, member.userId),
          el("td", {}, time(member.joinedAt)),
          el("td", {}, member.removedAt ? el("span", {}, "removed ", time(member.removedAt)) : "active"),
          el(
            "td",
            {},
            member.removedAt || member.userId === who?.user
              ? null
              : el(
                  "button",
                  {
                    type: "button",
                    "aria-label": `Remove ${member.userId}`,
                    onclick: () => {
                      if (
                        !confirm(
                          `Remove ${member.userId} from the workspace? Their token is refused until an admin adds them back.`,
                        )
                      )
                        return;
                      void act(
                        () => request("removeMember", { params: { user: member.userId } }),
                        `Removed ${member.userId}.`,
                      );
                    },
                  },
                  "Remove",
                ),
          ),
        ),
      ),
    );
    for (const row of body.rows) labelled(row, MEMBER_COLUMNS);
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
    const user = input.value;
    void act(() => request("addMember", { params: { user } }), `Added ${user}.`).then(() => {
      input.value = "";
    });
  });
  await load();
}
