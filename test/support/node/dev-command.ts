/**
 * `npm run dev` as a child process, as a user runs it: on a free port, with its embedded database in a
 * temporary folder (or on the PostgreSQL database `databaseUrl` names, as `DATABASE_URL`), and with the
 * flags given (e.g. --fake-llm). Node itself runs scripts/dev.ts (not the
 * npm and tsx wrappers), so the pid is the dev process; wrangler leads its own process group, which
 * stop() ends if the dev process could not.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { ROOT } from "../../../scripts/lib/dev-secret";

export interface DevCommand {
  url: string;
  /** The fake LLM's base URL (with --fake-llm): its control API is under /__control. */
  fakeLlmUrl: string | null;
  secret: string;
  output(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Waits until the dev command's output holds `line`. Fails when the command exits first or after `withinMs`,
 * the error's first line (what a CI summary shows of it) naming why: the dev command's own "failed to
 * start" line, or else the output's last.
 */
export async function untilOutput(
  child: ChildProcess,
  output: () => string,
  line: string,
  withinMs: number,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!output().includes(line)) {
    const failed = child.exitCode !== null ? "exited" : Date.now() > deadline ? "did not start" : null;
    if (failed) {
      const lines = output().trimEnd().split("\n");
      const why = lines.find((l) => l.includes("[dev] failed to start")) ?? lines.at(-1) ?? "";
      throw new Error(`npm run dev ${failed} (${why || "no output"}):\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface DevCommandOptions {
  /** A PostgreSQL database to run on instead of the embedded one (it is migrated at start). */
  databaseUrl?: string;
  readyWithinMs?: number;
}

export async function startDevCommand(
  args: string[],
  secret: string,
  { databaseUrl, readyWithinMs = 180_000 }: DevCommandOptions = {},
): Promise<DevCommand> {
  const port = await freePort();
  // The Durable Objects' state, and the embedded database when there is no databaseUrl.
  const dataDir = mkdtempSync(`${tmpdir()}/um-dev-`);
  const { DATABASE_URL: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts", ...args], {
    cwd: ROOT,
    env: {
      ...env,
      PORT: String(port),
      DATA_DIR: dataDir,
      AUTH_JWT_SECRET: secret,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const wranglerGroups: number[] = [];

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGINT");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    for (const group of wranglerGroups) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // already gone with the dev process
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await untilOutput(child, () => output, "unified-memory is running", readyWithinMs);
  } catch (err) {
    await stop();
    throw err;
  }
  wranglerGroups.push(...childrenOf(child));
  return {
    url: `http://127.0.0.1:${port}`,
    fakeLlmUrl: /fake LLM \(reference policies\): (\S+)/.exec(output)?.[1] ?? null,
    secret,
    output: () => output,
    stop,
  };
}

/** The dev process's own children that lead a process group (wrangler, spawned detached). */
function childrenOf(child: ChildProcess): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=,pgid=", "--ppid", String(child.pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter(([pid, pgid]) => pid !== undefined && pid > 0 && pid === pgid)
      .map(([pid]) => pid!);
  } catch {
    return [];
  }
}

/** The fake LLM's control API (test/support/node/fake-llm/server.ts). */
export async function fakeLlmControl<T = { id: string }>(
  fakeLlmUrl: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${fakeLlmUrl}/__control/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`fake LLM ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
