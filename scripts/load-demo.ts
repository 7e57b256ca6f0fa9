/**
 * npm run demo [-- --url http://127.0.0.1:8787] [--secret <AUTH_JWT_SECRET>] [--now <ISO date>]
 *              [--workspace <id>] [--refresh <user>]
 *
 * Loads the demo workspace (fixtures/demo-workspace.ts) into a running service: first registers the five
 * demo users as members of the workspace (PUT /members/:user with an admin token; sharing names only known
 * members) and creates the two demo teams (PUT /teams/:team), then posts one POST /items batch per user
 * with that user's dev token, then the items each member shares with a team. The secret defaults to
 * AUTH_JWT_SECRET from the environment or .dev.vars (else the one `npm run dev` generated). --workspace
 * loads it into another workspace (tokens carry the id in AUTH_WORKSPACE_CLAIM, default `org_id`). With
 * --refresh, it then posts that user's refresh batch (new decisions, a moved deadline), as the
 * incremental-refresh benchmark does.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  type ApiItem,
  DEMO_USER_IDS,
  type DemoTeamOptions,
  type DemoUserId,
  demoRefreshBatch,
  demoTeams,
  demoWorkspace,
  isDemoUserId,
} from "../fixtures/demo-workspace";
import type { UpsertStatus } from "../src/domain/items";
import { isWorkspaceId } from "../src/domain/workspaces";
import { devSecret } from "./lib/dev-secret";
import { signDevToken } from "./lib/token";

/** Where to load and as whom: the service, its HS256 secret, and the workspace (default: the default one). */
export interface ServiceTarget {
  /** Base URL of the service, e.g. http://127.0.0.1:8787. */
  url: string;
  /** The HS256 secret the service verifies tokens with. */
  secret: string;
  /** The workspace the tokens act in (absent: the default workspace). */
  workspace?: string;
}

export interface LoadDemoOptions extends ServiceTarget {
  /** Anchor date of the workspace (default: now). */
  now?: Date;
  /** Real user ids to load the demo users as (default: "ada", "ben", ...). */
  userIds?: DemoTeamOptions["userIds"];
  /** Real team ids to load the demo teams as (default: "platform", "payments"). */
  teamIds?: DemoTeamOptions["teamIds"];
}

export interface LoadSummary {
  user: DemoUserId;
  userId: string;
  /** Set for a batch of items shared with this team (its id). */
  team?: string;
  items: number;
  created: number;
  updated: number;
  unchanged: number;
  ms: number;
}

interface IngestAnswer {
  items: { id: string; source: string; externalId: string; status: UpsertStatus }[];
}

const ATTEMPTS = 4;

/**
 * One call to the service with a dev token (all scopes) for `userId`. Every call this file makes is
 * idempotent, so a 503 (e.g. wrangler dev reloading mid-request) or a refused connection is retried a few
 * times; any other non-2xx answer throws.
 */
async function send(
  target: ServiceTarget & { userId: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const token = signDevToken(target.secret, target.userId, undefined, { workspace: target.workspace });
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(new URL(path, target.url), {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
        },
        body: payload,
      });
    } catch (err) {
      if (attempt >= ATTEMPTS) throw err;
      await sleep(500 * attempt);
      continue;
    }
    const text = await res.text();
    if (res.ok) return { status: res.status, text };
    if (res.status !== 503 || attempt >= ATTEMPTS) {
      throw new Error(`${method} ${path} as ${target.userId} answered ${res.status}: ${text.slice(0, 2000)}`);
    }
    const retryAfter = Number(res.headers.get("retry-after"));
    await sleep(
      Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 10) * 1000 : 500 * attempt,
    );
  }
}

/** POSTs one batch to /items as `userId` (see `send` for retries). */
export async function postItems(
  options: ServiceTarget & { userId: string; items: ApiItem[] },
): Promise<IngestAnswer> {
  const { text } = await send(options, "POST", "/items", { items: options.items });
  return JSON.parse(text) as IngestAnswer;
}

/**
 * Registers users as members of the workspace (PUT /members/:user, admin scope), as their first API call
 * would: sharing names only known members, so a loader that posts items shared among several users
 * registers them all first. The admin is `adminId` (default: the first user, who is registered by the call
 * itself). Answers how many were new members.
 */
export async function registerMembers(
  options: ServiceTarget & { userIds: readonly string[]; adminId?: string },
): Promise<{ added: number; existing: number }> {
  const adminId = options.adminId ?? options.userIds[0];
  let added = 0;
  if (adminId === undefined) return { added, existing: 0 };
  for (const userId of new Set(options.userIds)) {
    const { status } = await send(
      { ...options, userId: adminId },
      "PUT",
      `/members/${encodeURIComponent(userId)}`,
    );
    if (status === 201) added++;
  }
  return { added, existing: new Set(options.userIds).size - added };
}

/** Creates or replaces a team (PUT /teams/:team {name, members}, admin scope); its members must be members. */
export async function putTeam(
  options: ServiceTarget & { adminId: string; team: { id: string; name: string; members: string[] } },
): Promise<"created" | "replaced"> {
  const { team } = options;
  const { status } = await send(
    { ...options, userId: options.adminId },
    "PUT",
    `/teams/${encodeURIComponent(team.id)}`,
    { name: team.name, members: team.members },
  );
  return status === 201 ? "created" : "replaced";
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ingest(
  options: LoadDemoOptions,
  user: DemoUserId,
  userId: string,
  items: ApiItem[],
  team?: string,
): Promise<LoadSummary> {
  const started = performance.now();
  const answer = await postItems({ ...target(options), userId, items });
  const count = (status: string) => answer.items.filter((i) => i.status === status).length;
  return {
    user,
    userId,
    ...(team === undefined ? {} : { team }),
    items: answer.items.length,
    created: count("created"),
    updated: count("updated"),
    unchanged: count("unchanged"),
    ms: Math.round(performance.now() - started),
  };
}

const target = ({ url, secret, workspace }: LoadDemoOptions): ServiceTarget => ({ url, secret, workspace });

/**
 * Loads the demo workspace: registers every demo user as a member, creates the two teams, then posts
 * every user's items (one batch per user, in order) and the items shared with each team (one batch per
 * team and owner); returns what the service did with each batch. Safe to repeat: members and teams are
 * replaced, unchanged items stay unchanged.
 */
export async function loadDemo(options: LoadDemoOptions): Promise<LoadSummary[]> {
  const now = options.now ?? new Date();
  const workspace = demoWorkspace(now, { userIds: options.userIds });
  const teams = demoTeams(now, { userIds: options.userIds, teamIds: options.teamIds });
  const adminId = workspace.users[0]!.id;
  await registerMembers({ ...target(options), userIds: workspace.users.map((u) => u.id), adminId });
  for (const team of teams) await putTeam({ ...target(options), adminId, team });
  const summaries: LoadSummary[] = [];
  for (const user of workspace.users) {
    summaries.push(await ingest(options, user.key, user.id, workspace.itemsByOwner[user.key]));
  }
  for (const team of teams) {
    for (const user of workspace.users) {
      const items = team.itemsByOwner[user.key];
      if (items) summaries.push(await ingest(options, user.key, user.id, items, team.id));
    }
  }
  return summaries;
}

/** Posts one demo user's refresh batch (load the workspace with the same anchor first). */
export async function loadDemoRefresh(options: LoadDemoOptions & { user: DemoUserId }): Promise<LoadSummary> {
  const now = options.now ?? new Date();
  const userId = options.userIds?.[options.user] ?? options.user;
  const items = demoRefreshBatch(now, options.user, { userIds: options.userIds });
  return ingest(options, options.user, userId, items);
}

export function formatSummaries(summaries: LoadSummary[]): string {
  const who = (s: LoadSummary) => (s.team === undefined ? s.userId : `${s.userId} -> team:${s.team}`);
  const width = Math.max(10, ...summaries.map((s) => who(s).length));
  const rows = summaries.map(
    (s) =>
      `${who(s).padEnd(width)} ${String(s.items).padStart(5)} ${String(s.created).padStart(8)} ${String(s.updated).padStart(8)} ${String(s.unchanged).padStart(10)} ${String(s.ms).padStart(7)}`,
  );
  return [
    `${"user".padEnd(width)} ${"items".padStart(5)} ${"created".padStart(8)} ${"updated".padStart(8)} ${"unchanged".padStart(10)} ${"ms".padStart(7)}`,
    ...rows,
  ].join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: `http://127.0.0.1:${process.env.PORT ?? 8787}` },
      secret: { type: "string" },
      now: { type: "string" },
      workspace: { type: "string" },
      refresh: { type: "string" },
    },
  });
  const now = values.now ? new Date(values.now) : new Date();
  if (Number.isNaN(now.getTime())) throw new Error(`--now is not a date: ${values.now}`);
  if (values.refresh !== undefined && !isDemoUserId(values.refresh)) {
    throw new Error(`--refresh takes one of ${DEMO_USER_IDS.join(", ")}`);
  }
  if (values.workspace !== undefined && !isWorkspaceId(values.workspace)) {
    throw new Error(`--workspace is not a usable workspace id: ${JSON.stringify(values.workspace)}`);
  }
  const options: LoadDemoOptions = {
    url: values.url,
    secret: values.secret ?? devSecret(),
    now,
    workspace: values.workspace,
  };
  const where = values.workspace === undefined ? "" : ` (workspace ${values.workspace})`;
  console.log(`[demo] loading Northwind Ledger (anchor ${now.toISOString()}) into ${options.url}${where}`);
  console.log(formatSummaries(await loadDemo(options)));
  if (values.refresh !== undefined && isDemoUserId(values.refresh)) {
    console.log(`[demo] refresh batch for ${values.refresh}:`);
    console.log(formatSummaries([await loadDemoRefresh({ ...options, user: values.refresh })]));
  }
  console.log(`[demo] done. ${demoHint(options.url, values.workspace)}`);
}

/** What to try once the demo is loaded: a search, a personal memory, a team memory, and a non-member. */
export function demoHint(url: string, workspace?: string): string {
  const ws = workspace === undefined ? "" : ` --workspace ${workspace}`;
  return [
    "Try:",
    `  TOKEN=$(npm run -s token -- ada${ws}); curl "${url}/items?q=Kestrel" -H "Authorization: Bearer $TOKEN"`,
    `  curl "${url}/memory?wait=30" -H "Authorization: Bearer $TOKEN"`,
    `  curl "${url}/teams/payments/memory?wait=30" -H "Authorization: Bearer $(npm run -s token -- ben${ws})"   # a member`,
    `  curl -i "${url}/teams/payments/memory" -H "Authorization: Bearer $(npm run -s token -- eli${ws})"      # not a member: 404`,
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(`[demo] failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
