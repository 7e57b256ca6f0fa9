/**
 * Signing in: paste a token (or open a sign-in link, whose one-time `#code=` main.js exchanges for a token).
 * A pasted token is checked by asking the API for the caller's teams, then kept in sessionStorage.
 */
/** @import { PageContext } from "../pages.js" */
import { ApiError, request } from "../api.js";
import { el, notice, replace } from "../dom.js";
import { memoryPage } from "../routes.js";
import { currentToken, signIn, signOut } from "../session.js";

/** @param {PageContext} context */
export async function renderSignIn({ main, params }) {
  const token = el("textarea", {
    id: "token",
    name: "token",
    rows: 4,
    required: true,
    autocomplete: "off",
    spellcheck: "false",
  });
  const status = el("div", {});
  const form = el(
    "form",
    { class: "stacked-form" },
    el("label", { for: "token" }, "Bearer token (a JWT)"),
    token,
    el("button", { type: "submit" }, "Sign in"),
  );
  replace(
    main,
    el("h1", {}, "Sign in"),
    el(
      "p",
      {},
      "Paste a token for the API, or open a sign-in link: ",
      el("code", {}, "npm run dev"),
      " prints one, and ",
      el("code", {}, "npm run -s token -- <user> --link"),
      " prints another (each works once, within ten minutes). To get a token for a user, run ",
      el("code", {}, "npm run -s token -- <user>"),
      " in the project (add scopes after the user, e.g. ",
      el("code", {}, "memory:read"),
      "). The token stays in this tab only (sessionStorage) and is sent to this service only.",
    ),
    params.get("reason") === "expired"
      ? notice("warning", "The service refused the token (expired or invalid). Sign in again.")
      : null,
    params.get("reason") === "link"
      ? notice(
          "warning",
          "That sign-in link was used already or has expired: each works once, within ten minutes.",
        )
      : null,
    form,
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    signIn(token.value);
    try {
      await request("listTeams");
      location.assign(safeNext(params.get("next")));
    } catch (error) {
      signOut();
      replace(
        status,
        notice("error", error instanceof ApiError ? `Not signed in: ${error.message}` : String(error)),
      );
    }
  });
  if (currentToken())
    replace(status, notice("info", "You are signed in; signing in again replaces the token."));
}

/**
 * Only a console address is a place to go back to.
 * @param {string | null} next
 */
function safeNext(next) {
  return next?.startsWith("/console/") && !next.startsWith("//") ? next : memoryPage();
}
