/**
 * The signed-in user's token, kept in sessionStorage only (gone when the tab closes; never local storage,
 * never a cookie, never an address). A sign-in link carries a one-time code in its `#code=` fragment
 * (which never reaches a server), which main.js exchanges for the token.
 */
const KEY = "unified-memory.token";

/**
 * The one-time code of a sign-in link, from the address's `#code=` fragment, or null.
 * @returns {string | null}
 */
export const signInCode = () => new URLSearchParams(location.hash.slice(1)).get("code")?.trim() || null;

/**
 * Takes the fragment out of the address bar and the tab's history. The browser's history database still
 * records the address as opened: a sign-in code in it is spent by then, or expires unused within minutes.
 */
export const forgetFragment = () => history.replaceState(null, "", location.pathname + location.search);

/** @returns {string | null} */
export const currentToken = () => sessionStorage.getItem(KEY);

/** @param {string} token */
export const signIn = (token) => sessionStorage.setItem(KEY, token.trim());

export const signOut = () => sessionStorage.removeItem(KEY);

/**
 * What the token says about its holder, read (not verified: the API verifies it on every request) to
 * label the page and show the admin pages to admin tokens.
 * @typedef {{ user: string, scopes: string[], expiresAt: Date | null }} Identity
 * @returns {Identity | null}
 */
export function identity() {
  const token = currentToken();
  const payload = token?.split(".")[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
    /** @type {Record<string, unknown>} */
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0))));
    return {
      user: typeof claims.sub === "string" ? claims.sub : "",
      scopes: typeof claims.scope === "string" ? claims.scope.split(" ").filter(Boolean) : [],
      expiresAt: typeof claims.exp === "number" ? new Date(claims.exp * 1000) : null,
    };
  } catch {
    return null;
  }
}

/**
 * Whether the token carries a scope (`admin` implies the others, as the API decides).
 * @param {Identity | null} who
 * @param {"memory:read" | "items:write" | "admin"} scope
 */
export const hasScope = (who, scope) =>
  who !== null && (who.scopes.includes(scope) || who.scopes.includes("admin"));
