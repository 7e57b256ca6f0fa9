/**
 * A throwaway stack for one benchmark: a fresh database (on BENCH_DATABASE_URL's server, or an in-memory
 * PGlite), the Neon stand-in and `wrangler dev` on BENCH_PORT (8799). Wrangler's output goes to a log file.
 * BENCH_KEEP_DATABASE=1 leaves the database behind (its name is printed), to read its plans afterwards;
 * BENCH_REUSE_DATABASE=<name> runs on such a database instead of a fresh one (and leaves it too).
 * BENCH_DATABASE_PREFIX names fresh databases (default um_bench), so parallel checkouts can tell theirs apart.
 * `restart(vars)` stops the worker and starts it again on the same database with other settings (a model
 * switched on).
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../scripts/lib/dev-secret";
import { createFreshDatabase, dropDatabase } from "../../scripts/lib/migrate";
import { type Stack, startStack } from "../../scripts/lib/stack";

export const BENCH_SECRET = "bench-secret-0123456789-0123456789-0123456789";

export interface BenchStack extends Stack {
  restart(vars: Record<string, string>): Promise<void>;
}

export async function startBenchStack(
  name: string,
  vars: Record<string, string> = {},
  /** The server to create the fresh database on (default BENCH_DATABASE_URL), e.g. through a wire tap. */
  adminUrl: string | undefined = process.env.BENCH_DATABASE_URL,
  /** A wrangler configuration other than wrangler.toml. */
  configPath?: string,
  /** False: the worker without wrangler's inspector (scripts/lib/stack.ts). */
  inspector?: boolean,
): Promise<BenchStack> {
  const reuse = process.env.BENCH_REUSE_DATABASE;
  const databaseUrl = !adminUrl
    ? undefined
    : reuse
      ? Object.assign(new URL(adminUrl), { pathname: `/${reuse}` }).toString()
      : await createFreshDatabase(
          adminUrl,
          `${process.env.BENCH_DATABASE_PREFIX ?? "um_bench"}_${name.replace(/\W/g, "_")}`,
        );
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  const logFile = `${ROOT}bench/results/${name}-wrangler.log`;
  writeFileSync(logFile, "");
  const persistTo = mkdtempSync(join(tmpdir(), `um-bench-${name}-`));
  const start = (settings: Record<string, string>) =>
    startStack({
      port: Number(process.env.BENCH_PORT ?? 8799),
      databaseUrl,
      vars: { AUTH_JWT_SECRET: BENCH_SECRET, ...settings },
      persistTo,
      configPath,
      inspector,
      onOutput: (chunk) => appendFileSync(logFile, chunk),
      log: (line) => console.error(`[bench] ${line}`),
    });
  let stack = await start(vars);
  return {
    ...stack,
    restart: async (settings) => {
      await stack.close();
      stack = await start(settings);
    },
    close: async () => {
      await stack.close();
      // Durable Object state: about 60 KB an object, so a sweep benchmark leaves gigabytes otherwise.
      rmSync(persistTo, { recursive: true, force: true });
      if (!adminUrl || !databaseUrl) return;
      if (reuse) return;
      if (process.env.BENCH_KEEP_DATABASE === "1") console.error(`[bench] kept the database ${databaseUrl}`);
      else await dropDatabase(adminUrl, databaseUrl);
    },
  };
}

export function backend(): string {
  return process.env.BENCH_DATABASE_URL ? "postgres" : "pglite";
}
