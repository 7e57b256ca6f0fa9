/**
 * The console's entry point, loaded by every page: adopts a sign-in link's token, sends a visitor without
 * one to sign in, draws the shell and renders the page its HTML file names (`<body data-page>`).
 */
import { ApiError } from "./api.js";
import { notice, replace } from "./dom.js";
import { PAGES } from "./pages.js";
import { signInPage, subjectOfPage } from "./routes.js";
import { adoptTokenFromFragment, currentToken, identity, signOut } from "./session.js";
import { renderShell } from "./shell.js";

async function start() {
  adoptTokenFromFragment();
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
