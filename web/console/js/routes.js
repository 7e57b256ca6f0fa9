/**
 * The console's own addresses: one function per page, so every link to a page is built the same way.
 * `team` names a team whose memory the page shows (null: the signed-in user's own).
 */

/**
 * @param {string} path
 * @param {Record<string, string | null | undefined>} [query]
 */
function consolePath(path, query = {}) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const search = params.toString();
  return `/console/${path}${search ? `?${search}` : ""}`;
}

/** @param {string | null} [team] */
export const memoryPage = (team = null) => consolePath("", { team });
/** @param {string} id */
export const itemPage = (id) => consolePath("item", { id });
/**
 * @param {string | null} [team]
 * @param {string | null} [version] the version whose diff to show
 */
export const versionsPage = (team = null, version = null) => consolePath("versions", { team, version });
/** @param {string | null} [team] */
export const runsPage = (team = null) => consolePath("runs", { team });
/** @param {Record<string, string>} [query] */
export const searchPage = (query = {}) => consolePath("search", query);
export const teamsPage = () => consolePath("teams");
/** @param {Record<string, string>} [query] `id`: one person */
export const peoplePage = (query = {}) => consolePath("people", query);
export const auditPage = () => consolePath("audit");
/** @param {Record<string, string>} [query] */
export const usagePage = (query = {}) => consolePath("usage", query);
/** @param {string} [next] where to go once signed in */
export const signInPage = (next) => consolePath("sign-in", { next });

/**
 * Whose memory a page is about, from its address: the user's own, or a team's (`?team=`).
 * @typedef {{ team: string | null, label: string }} Subject
 * @returns {Subject}
 */
export function subjectOfPage() {
  const team = new URLSearchParams(location.search).get("team");
  return team ? { team, label: `Team ${team}` } : { team: null, label: "Your" };
}
