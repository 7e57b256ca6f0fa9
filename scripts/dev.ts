/**
 * npm run dev [-- --fake-llm] [-- --demo] [-- --var NAME=value ...]: the whole service on one machine: Postgres (DATABASE_URL, or
 * the embedded PGlite with data under .data/pglite), the Neon stand-in, migrations, and `wrangler dev`
 * (offline) on 127.0.0.1:$PORT (8787). LLM keys, models and base URLs come from .dev.vars, which this
 * never writes. --fake-llm starts the fake LLM (reference policies) and points the worker at it, with no
 * minimum interval between refreshes and no ingest debounce (FAKE_LLM_DEFAULTS); --demo loads the demo
 * workspace (members, two teams, their items) once per data folder, so a restart never brings back what a
 * user deleted or erased (--demo=reset loads it again); --var sets one worker setting for this run on top
 * of .dev.vars and those defaults (e.g. --var MIN_REFRESH_INTERVAL_MINUTES=60).
 * Ctrl-C stops everything it started; the next start reuses the data.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { startFakeLlm, workerVarsFor } from "../test/support/node/fake-llm/server";
import { ROOT, readDevVars } from "./lib/dev-secret";
import { reservePort, type Stack, startStack } from "./lib/stack";
import { signDevToken, signInLink } from "./lib/token";
import { demoHint, formatSummaries, loadDemo } from "./load-demo";

const port = Number(process.env.PORT ?? 8787);
/** Where the embedded database and the Durable Objects' state live (git-ignored). */
const dataDir = process.env.DATA_DIR ?? `${ROOT}.data`;
const args = process.argv.slice(2);
const flags = new Set(args);
/** Where `--demo` notes that this data folder has had the demo workspace. */
const demoMarker = `${dataDir}/demo-loaded.json`;

/**
 * With the fake LLM a run takes a second and costs nothing: refresh as often as asked, and right after new
 * material, so a change shows at once. `--var` still wins.
 */
export const FAKE_LLM_DEFAULTS = { MIN_REFRESH_INTERVAL_MINUTES: "0", INGEST_DEBOUNCE_SECONDS: "0" };
const closers: (() => Promise<void>)[] = [];

/** `--var NAME=value` pairs, in order (a later one wins). */
function settingsFromArgs(): Record<string, string> {
  const settings: Record<string, string> = {};
  args.forEach((arg, i) => {
    if (arg !== "--var") return;
    const match = /^([A-Z0-9_]+)=(.*)$/s.exec(args[i + 1] ?? "");
    if (!match) throw new Error(`--var needs NAME=value, got ${JSON.stringify(args[i + 1] ?? "")}`);
    settings[match[1]!] = match[2]!;
  });
  return settings;
}

async function main() {
  const vars: Record<string, string> = {};
  // Held from here, so the fake LLM's free port is never the worker's (startStack releases it for wrangler).
  const reserved = await reservePort(port);
  closers.push(reserved);
  if (flags.has("--fake-llm")) {
    const fake = await startFakeLlm();
    closers.push(fake.close);
    console.log(`[dev] fake LLM (reference policies): ${fake.url}`);
    console.log(
      "[dev] no refresh interval and no ingest debounce with the fake LLM (--var MIN_REFRESH_INTERVAL_MINUTES=60 --var INGEST_DEBOUNCE_SECONDS=300 for production's)",
    );
    Object.assign(vars, workerVarsFor(fake), FAKE_LLM_DEFAULTS);
  }
  Object.assign(vars, settingsFromArgs());
  const stack = await startStack({
    port,
    databaseUrl: process.env.DATABASE_URL ?? readDevVars().DATABASE_URL,
    dataDir: `${dataDir}/pglite`,
    // Durable Object state lives beside the database, so wiping .data/ resets both together.
    persistTo: `${dataDir}/wrangler`,
    reserved,
    useDevVars: true,
    vars,
    log: (line) => console.log(`[dev] ${line}`),
  });
  closers.push(stack.close);
  await printHelp(stack);
  if (flags.has("--demo") || flags.has("--demo=reset")) await demo(stack, flags.has("--demo=reset"));
  await stop(await stack.exited);
}

/**
 * Loads the demo workspace the first time this data folder sees --demo; afterwards it is the users' data
 * (deleted items stay deleted, erased users stay erased) unless `--demo=reset` asks for it again.
 */
async function demo(stack: Stack, reset: boolean) {
  const database = process.env.DATABASE_URL ?? readDevVars().DATABASE_URL ?? "embedded";
  const loaded = loadedDemo();
  if (loaded && loaded.database === database && !reset) {
    console.log(
      `[dev] demo already loaded (${loaded.loadedAt}) in ${dataDir}: what was deleted since stays deleted; --demo=reset loads it again`,
    );
  } else {
    const summaries = await loadDemo({ url: stack.url, secret: stack.secret });
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(demoMarker, JSON.stringify({ database, loadedAt: new Date().toISOString() }));
    console.log(
      `[dev] demo workspace loaded (5 members, teams platform and payments):\n${formatSummaries(summaries)}`,
    );
  }
  console.log(`[dev] ${demoHint(stack.url)}`);
}

function loadedDemo(): { database: string; loadedAt: string } | null {
  if (!existsSync(demoMarker)) return null;
  try {
    const value = JSON.parse(readFileSync(demoMarker, "utf8")) as { database?: unknown; loadedAt?: unknown };
    return typeof value.database === "string" && typeof value.loadedAt === "string"
      ? { database: value.database, loadedAt: value.loadedAt }
      : null;
  } catch {
    return null;
  }
}

async function printHelp({ url, secret }: Stack) {
  const token = signDevToken(secret, "ada");
  const link = await signInLink(url, secret, "ada").catch(
    (err: unknown) =>
      `(none: ${err instanceof Error ? err.message : String(err)}; paste the token below instead)`,
  );
  console.log(`
[dev] unified-memory is running at ${url}
[dev] the console, signed in as "ada" for 12 hours (a one-time code, valid 10 minutes; another: npm run -s token -- ada --link):
${link}
[dev] a token for user "ada" (all scopes; another: npm run -s token -- <userId> [scopes] [--workspace <id>]):
${token}

  TOKEN=$(npm run -s token -- ada)
  curl ${url}/health
  curl -X POST ${url}/items -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
    -d '{"items":[{"source":"gmail","externalId":"m1","kind":"email","title":"Payments migration","body":"Ada leads the payments migration; cut-over is on 3 March.","occurredAt":"2026-11-20T10:00:00Z"}]}'
  curl "${url}/items?q=payments" -H "Authorization: Bearer $TOKEN"
  curl -i "${url}/memory?wait=30" -H "Authorization: Bearer $TOKEN"
  curl "${url}/__scheduled?cron=0+3+*+*+*"      # run the daily sweep now
  npm run demo                                   # load the demo workspace
`);
}

let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    for (const close of closers.reverse()) await close().catch(() => {});
  }
  process.exit(code);
}

process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
main().catch(async (err) => {
  console.error("[dev] failed to start:", err instanceof Error ? err.message : err);
  await stop(1);
});
