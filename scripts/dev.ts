/**
 * npm run dev: the whole service on one machine.
 *   1. Postgres: DATABASE_URL if set, else the embedded PGlite with data under .data/pglite.
 *   2. The local stand-in for Neon's endpoints in front of it; migrations applied.
 *   3. wrangler dev (offline) on 127.0.0.1:$PORT (8787), with the database settings passed as vars;
 *      everything else (LLM keys, models, base URLs) comes from .dev.vars, which this never writes.
 * Ctrl-C stops everything it started; the next start reuses the data.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { ConfigError, parseConfig } from "../src/config/config";
import { devSecret, ROOT, readDevVars } from "./lib/dev-secret";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "./lib/embedded-postgres";
import { applyMigrations } from "./lib/migrate";
import { type NeonLocal, startNeonLocal } from "./lib/neon-local";
import { signDevToken } from "./lib/token";

const port = Number(process.env.PORT ?? 8787);
const started: { close(): Promise<void> }[] = [];
let wrangler: ChildProcess | undefined;

async function main() {
  const devVars = readDevVars();
  let databaseUrl = process.env.DATABASE_URL ?? devVars.DATABASE_URL;
  if (databaseUrl) {
    console.log(`[dev] database: ${redact(databaseUrl)}`);
  } else {
    console.log("[dev] database: embedded PGlite (data in .data/pglite)");
    const embedded: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: `${ROOT}.data/pglite` });
    started.push(embedded);
    databaseUrl = embedded.url;
  }
  await applyMigrations(databaseUrl);
  console.log("[dev] migrations applied");
  const neonLocal: NeonLocal = await startNeonLocal({ databaseUrl });
  started.push(neonLocal);
  console.log(`[dev] Neon stand-in: ${neonLocal.url}`);

  const secret = devSecret();
  const vars = {
    ...devVars,
    DATABASE_URL: databaseUrl,
    NEON_LOCAL_ENDPOINT: neonLocal.url,
    AUTH_JWT_SECRET: secret,
  };
  try {
    parseConfig(vars);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`[dev] ${err.message}\n[dev] fix .dev.vars (see .dev.vars.example)`);
      await shutdown(1);
    }
    throw err;
  }

  const args = [
    "wrangler",
    "dev",
    "--local",
    "--test-scheduled",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
  ];
  for (const key of ["DATABASE_URL", "NEON_LOCAL_ENDPOINT", "AUTH_JWT_SECRET"] as const) {
    args.push("--var", `${key}:${vars[key]}`);
  }
  wrangler = spawn("npx", args, {
    cwd: ROOT,
    stdio: ["inherit", "pipe", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  let announced = false;
  wrangler.stdout?.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (!announced && chunk.toString().includes("Ready on")) {
      announced = true;
      printHelp(secret);
    }
  });
  wrangler.on("exit", (code) => {
    wrangler = undefined;
    void shutdown(code ?? 0);
  });
}

function printHelp(secret: string) {
  const base = `http://127.0.0.1:${port}`;
  const token = signDevToken(secret, "ada");
  console.log(`
[dev] unified-memory is running at ${base}
[dev] a token for user "ada" (all scopes; another: npm run -s token -- <userId> [scopes]):
${token}

  TOKEN=$(npm run -s token -- ada)
  curl ${base}/health
  curl -X POST ${base}/items -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
    -d '{"items":[{"source":"gmail","externalId":"m1","kind":"email","title":"Payments migration","body":"Ada leads the payments migration; cut-over is on 3 March.","occurredAt":"2026-11-20T10:00:00Z"}]}'
  curl "${base}/items?q=payments" -H "Authorization: Bearer $TOKEN"
  curl -i "${base}/memory" -H "Authorization: Bearer $TOKEN"
  curl "${base}/__scheduled?cron=0+3+*+*+*"      # run the daily sweep now
  npm run demo                                    # load the demo workspace (5 users, ~400 items)
`);
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}

let stopping = false;
async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    wrangler?.kill("SIGINT");
    for (const s of started.reverse()) await s.close().catch(() => {});
  }
  process.exit(code);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
main().catch(async (err) => {
  console.error("[dev] failed to start:", err instanceof Error ? err.message : err);
  await shutdown(1);
});
