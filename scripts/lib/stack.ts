/**
 * The local stack: Postgres (DATABASE_URL, or embedded PGlite), the Neon stand-in, migrations, and
 * `wrangler dev` in front of them. Used by `npm run dev` and by the benchmarks.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { type AddressInfo, createServer } from "node:net";
import { ConfigError, parseConfig } from "../../src/config/config";
import { devSecret, ROOT, readDevVars } from "./dev-secret";
import { EMBEDDED_MAX_CLIENT_CONNECTIONS, startEmbeddedPostgres } from "./embedded-postgres";
import { applyMigrations } from "./migrate";
import { startNeonLocal } from "./neon-local";

export interface StackOptions {
  port: number;
  /** A real Postgres; without it, PGlite keeps its data in `dataDir` (in memory when omitted). */
  databaseUrl?: string;
  dataDir?: string;
  /** Settings for the worker on top of .dev.vars (when `useDevVars`). */
  vars?: Record<string, string>;
  useDevVars?: boolean;
  /** Where wrangler keeps Durable Object state (default .wrangler/state); benchmarks use a fresh folder. */
  persistTo?: string;
  /** Another wrangler configuration than wrangler.toml (a benchmark's variant of it). */
  configPath?: string;
  /** Another entry module than the configuration's `main` (a benchmark's worker around the product's). */
  main?: string;
  /**
   * False runs the worker without wrangler's runtime inspector (scripts/lib/wrangler-headless.mjs), as it runs
   * deployed: benchmarks of throughput, where the inspector's copies of every body cost more than the worker.
   */
  inspector?: boolean;
  /**
   * The port is already held by the caller (reservePort, released here once wrangler is about to take it),
   * for a caller that starts servers of its own first.
   */
  reserved?: () => Promise<void>;
  /** Where wrangler's output goes; defaults to this process's stdout/stderr. */
  onOutput?: (chunk: string) => void;
  log?: (line: string) => void;
}

export interface Stack {
  url: string;
  /** The Postgres the worker reaches through the stand-in (for benchmarks that set up state directly). */
  databaseUrl: string;
  secret: string;
  /** Resolves when wrangler exits (by itself or through close()). */
  exited: Promise<number>;
  close(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const log = options.log ?? ((line: string) => console.log(`[stack] ${line}`));
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    closers.length = 0;
  };
  try {
    // Held until wrangler takes it, so no server started here (database, stand-in, inspector) is handed it.
    const release = options.reserved ?? (await reservePort(options.port));
    closers.push(release);
    const devVars = options.useDevVars ? readDevVars() : {};
    let databaseUrl = options.databaseUrl;
    if (databaseUrl) {
      log(`database: ${redact(databaseUrl)}`);
    } else {
      log(`database: embedded PGlite (${options.dataDir ? `data in ${options.dataDir}` : "in memory"})`);
      const embedded = await startEmbeddedPostgres(options.dataDir ? { dataDir: options.dataDir } : {});
      closers.push(embedded.close);
      databaseUrl = embedded.url;
    }
    await applyMigrations(databaseUrl);
    log("migrations applied");
    const neonLocal = await startNeonLocal({
      databaseUrl,
      maxConnections: options.databaseUrl ? undefined : EMBEDDED_MAX_CLIENT_CONNECTIONS,
    });
    closers.push(neonLocal.close);
    log(`Neon stand-in: ${neonLocal.url}`);

    const secret = options.vars?.AUTH_JWT_SECRET ?? devSecret();
    const vars: Record<string, string> = {
      ...devVars,
      ...options.vars,
      DATABASE_URL: databaseUrl,
      NEON_LOCAL_ENDPOINT: neonLocal.url,
      AUTH_JWT_SECRET: secret,
    };
    try {
      parseConfig(vars);
    } catch (err) {
      if (err instanceof ConfigError)
        throw new Error(`${err.message} (fix .dev.vars; see .dev.vars.example)`);
      throw err;
    }
    const inspectorPort = await freePort();
    await release();
    const wrangler = spawnWrangler(options, inspectorPort, {
      ...options.vars,
      ...pick(vars, ["DATABASE_URL", "NEON_LOCAL_ENDPOINT", "AUTH_JWT_SECRET"]),
    });
    const exited = new Promise<number>((resolve) => wrangler.on("exit", (code) => resolve(code ?? 0)));
    closers.push(async () => {
      if (wrangler.exitCode === null && wrangler.pid) {
        process.kill(-wrangler.pid, "SIGINT");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (wrangler.exitCode === null) process.kill(-wrangler.pid, "SIGKILL");
      }
    });
    await waitUntilReady(wrangler, options.onOutput);
    return { url: `http://127.0.0.1:${options.port}`, databaseUrl, secret, exited, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/**
 * Listens on the service's port (dropping any connection) until the returned function closes it (again, a
 * no-op), failing at once, naming the port, when another process listens there.
 */
export function reservePort(port: number): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "EADDRINUSE"
          ? new Error(
              `port ${port} on 127.0.0.1 is already in use by another process: stop it, or choose another port (PORT=<port> npm run dev)`,
            )
          : err,
      ),
    );
    server.listen(port, "127.0.0.1", () => {
      let closed: Promise<void> | undefined;
      resolve(() => (closed ??= new Promise((done) => server.close(() => done()))));
    });
  });
}

/** A port nothing listens on now: wrangler's inspector defaults to 9229, which another process may hold. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function spawnWrangler(
  { port, persistTo, configPath, main, inspector }: StackOptions,
  inspectorPort: number,
  vars: Record<string, string>,
): ChildProcess {
  // Its own process group, so closing kills wrangler and the workerd it started.
  const spawnOptions = {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"] as ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  };
  if (inspector === false) {
    const headless = { port, ip: "127.0.0.1", config: configPath, main, persistTo, vars };
    return spawn(
      process.execPath,
      [`${ROOT}scripts/lib/wrangler-headless.mjs`, JSON.stringify(headless)],
      spawnOptions,
    );
  }
  const args = ["dev", "--local", "--test-scheduled", "--ip", "127.0.0.1", "--port", String(port)];
  args.push("--inspector-port", String(inspectorPort));
  if (main) args.splice(1, 0, main);
  if (persistTo) args.push("--persist-to", persistTo);
  if (configPath) args.push("--config", configPath);
  for (const [key, value] of Object.entries(vars)) args.push("--var", `${key}:${value}`);
  return spawn(`${ROOT}node_modules/.bin/wrangler`, args, spawnOptions);
}

function waitUntilReady(wrangler: ChildProcess, onOutput?: (chunk: string) => void): Promise<void> {
  const write = onOutput ?? ((chunk: string) => process.stdout.write(chunk));
  return new Promise((resolve, reject) => {
    let ready = false;
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      write(text);
      if (!ready && text.includes("Ready on")) {
        ready = true;
        resolve();
      }
    };
    wrangler.stdout?.on("data", onData);
    wrangler.stderr?.on("data", onData);
    wrangler.on("exit", (code) => {
      if (!ready) reject(new Error(`wrangler dev exited with ${code} before it was ready`));
    });
  });
}

function pick(source: Record<string, string>, keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k] as string]));
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
