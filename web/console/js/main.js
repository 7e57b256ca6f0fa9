/**
 * The console's entry point, loaded by every page: exchanges a sign-in link's code for its token, sends a
 * visitor without one to sign in, draws the shell and renders the page its HTML file names (`<body data-page>`).
 */
import { ApiError, answerOf } from "./api.js";
import { notice, replace } from "./dom.js";
import { PAGES } from "./pages.js";
import { signInPage, subjectOfPage } from "./routes.js";
import { currentToken, forgetFragment, identity, signIn, signInCode, signOut } from "./session.js";
import { renderShell } from "./shell.js";

/**
 * Exchanges a sign-in link's code for its token, then takes the code out of the address; a code the service
 * refuses (used, expired) sends the visitor to sign in, saying why, and changes nothing. Answers whether
 * the page may go on.
 */
async function adoptSignInCode() {
  const code = signInCode();
  if (code === null) return true;
  try {
    const { token } = /** @type {{ token: string }} */ (
      await answerOf("exchangeSignInCode", { body: { code } })
    );
    signIn(token);
    // Only now: an address without the code means the tab holds the token.
    forgetFragment();
    return true;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    location.replace(`${signInPage(location.pathname + location.search)}&reason=link`);
    return false;
  }
}

async function start() {
  if (!(await adoptSignInCode())) return;
  const name = document.body.dataset.page ?? "memory";
  const page = PAGES[name];
  if (!page) throw new Error(`No page named ${name}`);
  if (page.signedIn && !currentToken()) {
    location.replace(signInPage(location.pathname + location.search));
    return;
  }
  const who = currentToken() ? identity() : null;
  document.title = `${page.title} · unified-memory`;
  const main = renderShell(name, who);
  try {
    await page.render({ main, params: new URLSearchParams(location.search), subject: subjectOfPage(), who });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      signOut();
      location.replace(`${signInPage(location.pathname + location.search)}&reason=expired`);
      return;
    }
    replace(
      main,
      notice(
        "error",
        error instanceof ApiError
          ? `${error.message} (${error.code}, HTTP ${error.status})`
          : `Something went wrong: ${String(error)}`,
      ),
    );
  }
}

void start();
