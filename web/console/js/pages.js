/**
 * Every page of the console: its name (the `data-page` of its HTML file), title, where the navigation
 * shows it, and what renders it. A new page (e.g. an admin audit or usage page) is one entry here, one
 * module in pages/ and one HTML file naming it.
 */
/** @import { Identity } from "./session.js" */
/** @import { Subject } from "./routes.js" */

import { renderAdminAudit } from "./pages/admin-audit.js";
import { renderMembers } from "./pages/admin-members.js";
import { renderAdminTeams } from "./pages/admin-teams.js";
import { renderAdminUsage } from "./pages/admin-usage.js";
import { renderWebhooks } from "./pages/admin-webhooks.js";
import { renderImport } from "./pages/import.js";
import { renderItem } from "./pages/item.js";
import { renderMemory } from "./pages/memory.js";
import { renderMyActivity } from "./pages/my-activity.js";
import { renderPeople } from "./pages/people.js";
import { renderRuns } from "./pages/runs.js";
import { renderSearch } from "./pages/search.js";
import { renderSignIn } from "./pages/sign-in.js";
import { renderTeams } from "./pages/teams.js";
import { renderVersions } from "./pages/versions.js";

/**
 * @typedef {{ main: HTMLElement, params: URLSearchParams, subject: Subject, who: Identity | null }} PageContext
 * @typedef {{
 *   title: string,
 *   render: (context: PageContext) => Promise<void>,
 *   nav?: { label: string, href: string, group: "main" | "admin" },
 *   signedIn: boolean,
 * }} Page
 */

/** @type {Record<string, Page>} */
export const PAGES = {
  "sign-in": { title: "Sign in", render: renderSignIn, signedIn: false },
  memory: {
    title: "Memory",
    render: renderMemory,
    nav: { label: "Memory", href: "/console/", group: "main" },
    signedIn: true,
  },
  versions: {
    title: "Versions",
    render: renderVersions,
    nav: { label: "Versions", href: "/console/versions", group: "main" },
    signedIn: true,
  },
  runs: {
    title: "Runs",
    render: renderRuns,
    nav: { label: "Runs", href: "/console/runs", group: "main" },
    signedIn: true,
  },
  search: {
    title: "Search",
    render: renderSearch,
    nav: { label: "Search", href: "/console/search", group: "main" },
    signedIn: true,
  },
  people: {
    title: "People",
    render: renderPeople,
    nav: { label: "People", href: "/console/people", group: "main" },
    signedIn: true,
  },
  teams: {
    title: "Teams",
    render: renderTeams,
    nav: { label: "Teams", href: "/console/teams", group: "main" },
    signedIn: true,
  },
  activity: {
    title: "My activity",
    render: renderMyActivity,
    nav: { label: "My activity", href: "/console/activity", group: "main" },
    signedIn: true,
  },
  import: {
    title: "Import",
    render: renderImport,
    nav: { label: "Import", href: "/console/import", group: "main" },
    signedIn: true,
  },
  item: { title: "Item", render: renderItem, signedIn: true },
  members: {
    title: "Members",
    render: renderMembers,
    nav: { label: "Members", href: "/console/members", group: "admin" },
    signedIn: true,
  },
  "admin-teams": {
    title: "Teams (admin)",
    render: renderAdminTeams,
    nav: { label: "Manage teams", href: "/console/admin-teams", group: "admin" },
    signedIn: true,
  },
  audit: {
    title: "Audit",
    render: renderAdminAudit,
    nav: { label: "Audit", href: "/console/audit", group: "admin" },
    signedIn: true,
  },
  usage: {
    title: "Usage",
    render: renderAdminUsage,
    nav: { label: "Usage", href: "/console/usage", group: "admin" },
    signedIn: true,
  },
  webhooks: {
    title: "Webhooks",
    render: renderWebhooks,
    nav: { label: "Webhooks", href: "/console/webhooks", group: "admin" },
    signedIn: true,
  },
};
