/**
 * npm run demo [-- --url http://127.0.0.1:8787] [--secret <AUTH_JWT_SECRET>] [--now <ISO date>] [--refresh <user>]
 *
 * Loads the demo workspace (fixtures/demo-workspace.ts) into a running service: one POST /items batch per
 * user, each with that user's dev token. The secret defaults to AUTH_JWT_SECRET from the environment or
 * .dev.vars (else the one `npm run dev` generated). With --refresh, it then posts that user's refresh
 * batch (new decisions, a moved deadline), as the incremental-refresh benchmark does.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  type ApiItem,
  DEMO_USER_IDS,
  type DemoOptions,
  type DemoUserId,
  demoRefreshBatch,
  demoWorkspace,
  isDemoUserId,
} from "../fixtures/demo-workspace";
import { devSecret } from "./lib/dev-secret";
import { signDevToken } from "./lib/token";

export interface LoadDemoOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:8787. */
  url: string;
  /** The HS256 secret the service verifies tokens with. */
  secret: string;
  /** Anchor date of the workspace (default: now). */
  now?: Date;
  /** Real user ids to load the demo users as (default: "ada", "ben", ...). */
  userIds?: DemoOptions["userIds"];
}

export interface LoadSummary {
  user: DemoUserId;
  userId: string;
  items: number;
  created: number;
  updated: number;
  unchanged: number;
  ms: number;
}

interface IngestAnswer {
  items: { id: string; source: string; externalId: string; status: "created" | "updated" | "unchanged" }[];
}

const ATTEMPTS = 4;

/**
 * POSTs one batch to /items with a dev token for `userId`. An ingest is an idempotent upsert, so a 503
 * (e.g. wrangler dev reloading mid-request) or a refused connection is retried a few times; any other
 * non-2xx answer throws.
 */
export async function postItems(options: {
  url: string;
  secret: string;
  userId: string;
  items: ApiItem[];
}): Promise<IngestAnswer> {
  const body = JSON.stringify({ items: options.items });
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(new URL("/items", options.url), {
        method: "POST",
        headers: {
          authorization: `Bearer ${signDevToken(options.secret, options.userId)}`,
          "content-type": "application/json",
        },
        body,
      });
    } catch (err) {
      if (attempt >= ATTEMPTS) throw err;
      await sleep(500 * attempt);
      continue;
    }
    const text = await res.text();
    if (res.ok) return JSON.parse(text) as IngestAnswer;
    if (res.status !== 503 || attempt >= ATTEMPTS) {
      throw new Error(`POST /items for ${options.userId} answered ${res.status}: ${text.slice(0, 2000)}`);
    }
    const retryAfter = Number(res.headers.get("retry-after"));
    await sleep(
      Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 10) * 1000 : 500 * attempt,
    );
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ingest(
  options: LoadDemoOptions,
  user: DemoUserId,
  userId: string,
  items: ApiItem[],
): Promise<LoadSummary> {
  const started = performance.now();
  const answer = await postItems({ url: options.url, secret: options.secret, userId, items });
  const count = (status: string) => answer.items.filter((i) => i.status === status).length;
  return {
    user,
    userId,
    items: answer.items.length,
    created: count("created"),
    updated: count("updated"),
    unchanged: count("unchanged"),
    ms: Math.round(performance.now() - started),
  };
}

/** Loads every demo user's items, one batch per user, in order; returns what the service did with them. */
export async function loadDemo(options: LoadDemoOptions): Promise<LoadSummary[]> {
  const now = options.now ?? new Date();
  const workspace = demoWorkspace(now, { userIds: options.userIds });
  const summaries: LoadSummary[] = [];
  for (const user of workspace.users) {
    summaries.push(await ingest(options, user.key, user.id, workspace.itemsByOwner[user.key]));
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
  const rows = summaries.map(
    (s) =>
      `${s.userId.padEnd(10)} ${String(s.items).padStart(5)} ${String(s.created).padStart(8)} ${String(s.updated).padStart(8)} ${String(s.unchanged).padStart(10)} ${String(s.ms).padStart(7)}`,
  );
  return [
    `${"user".padEnd(10)} ${"items".padStart(5)} ${"created".padStart(8)} ${"updated".padStart(8)} ${"unchanged".padStart(10)} ${"ms".padStart(7)}`,
    ...rows,
  ].join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: `http://127.0.0.1:${process.env.PORT ?? 8787}` },
      secret: { type: "string" },
      now: { type: "string" },
      refresh: { type: "string" },
    },
  });
  const now = values.now ? new Date(values.now) : new Date();
  if (Number.isNaN(now.getTime())) throw new Error(`--now is not a date: ${values.now}`);
  if (values.refresh !== undefined && !isDemoUserId(values.refresh)) {
    throw new Error(`--refresh takes one of ${DEMO_USER_IDS.join(", ")}`);
  }
  const options: LoadDemoOptions = { url: values.url, secret: values.secret ?? devSecret(), now };
  console.log(`[demo] loading Northwind Ledger (anchor ${now.toISOString()}) into ${options.url}`);
  console.log(formatSummaries(await loadDemo(options)));
  if (values.refresh !== undefined && isDemoUserId(values.refresh)) {
    console.log(`[demo] refresh batch for ${values.refresh}:`);
    console.log(formatSummaries([await loadDemoRefresh({ ...options, user: values.refresh })]));
  }
  console.log(
    `[demo] done. Try: TOKEN=$(npm run -s token -- ada); curl "${options.url}/items?q=Kestrel" -H "Authorization: Bearer $TOKEN"`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(`[demo] failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
