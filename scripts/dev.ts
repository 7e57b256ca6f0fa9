/**
 * npm run dev: the whole service on one machine: Postgres (DATABASE_URL, or the embedded PGlite with
 * data under .data/pglite), the Neon stand-in, migrations, and `wrangler dev` (offline) on
 * 127.0.0.1:$PORT (8787). LLM keys, models and base URLs come from .dev.vars, which this never writes.
 * Ctrl-C stops everything it started; the next start reuses the data.
 */
import { ROOT, readDevVars } from "./lib/dev-secret";
import { type Stack, startStack } from "./lib/stack";
import { signDevToken } from "./lib/token";

const port = Number(process.env.PORT ?? 8787);
let stack: Stack | undefined;

async function main() {
  stack = await startStack({
    port,
    databaseUrl: process.env.DATABASE_URL ?? readDevVars().DATABASE_URL,
    dataDir: `${ROOT}.data/pglite`,
    useDevVars: true,
    log: (line) => console.log(`[dev] ${line}`),
  });
  printHelp(stack);
  const code = await stack.exited;
  await stop(code);
}

function printHelp({ url, secret }: Stack) {
  console.log(`
[dev] unified-memory is running at ${url}
[dev] a token for user "ada" (all scopes; another: npm run -s token -- <userId> [scopes]):
${signDevToken(secret, "ada")}

  TOKEN=$(npm run -s token -- ada)
  curl ${url}/health
  curl -X POST ${url}/items -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
    -d '{"items":[{"source":"gmail","externalId":"m1","kind":"email","title":"Payments migration","body":"Ada leads the payments migration; cut-over is on 3 March.","occurredAt":"2026-11-20T10:00:00Z"}]}'
  curl "${url}/items?q=payments" -H "Authorization: Bearer $TOKEN"
  curl -i "${url}/memory" -H "Authorization: Bearer $TOKEN"
  curl "${url}/__scheduled?cron=0+3+*+*+*"      # run the daily sweep now
  npm run demo                                   # load the demo workspace
`);
}

let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    await stack?.close();
  }
  process.exit(code);
}

process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
main().catch(async (err) => {
  console.error("[dev] failed to start:", err instanceof Error ? err.message : err);
  await stop(1);
});
