/**
 * Both client packages as a user installs them, outside the repository (scripts/check-client-packages.sh: the
 * tarball `npm pack` makes, and `pip install` into a fresh virtual environment), against `npm run dev -- --fake-llm`
 * on its embedded database. Part of the `node` project, so it runs once; the clients' live suites, which depend on
 * the database, run per database in the `clients` project (test/node/clients.test.ts).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/dev-secret";
import { signDevToken } from "../../scripts/lib/token";
import { type DevCommand, startDevCommand } from "../support/node/dev-command";

const run = promisify(execFile);
const SECRET = "client-packages-test-secret-long-enough-0123456789";
let dev: DevCommand;

beforeAll(async () => {
  dev = await startDevCommand(
    ["--fake-llm", "--var", "MIN_REFRESH_INTERVAL_MINUTES=0", "--var", "DATABASE_QUERY_TIMEOUT_MS=30000"],
    SECRET,
  );
}, 240_000);
afterAll(async () => {
  await dev?.stop();
}, 60_000);

const tokenOf = (user: string) => signDevToken(SECRET, user);

/** An interpreter whose setuptools builds a wheel offline (>= 70.1, or with wheel), if the machine has one. */
async function offlinePython(): Promise<string | null> {
  const check =
    "import importlib.util, sys, setuptools; v = tuple(int(p) for p in setuptools.__version__.split('.')[:2]); " +
    "sys.exit(0 if v >= (70, 1) or importlib.util.find_spec('wheel') else 1)";
  for (const candidate of [process.env.PYTHON, "python3", "/usr/bin/python3"]) {
    if (!candidate) continue;
    try {
      await run(candidate, ["-c", check]);
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

describe("the packages, installed outside the repository", () => {
  it("ingest 1,200 items in one call, page a search and read a memory (scripts/check-client-packages.sh)", async () => {
    const python = (await offlinePython()) ?? "python3";
    const { stdout } = await run("bash", [`${ROOT}scripts/check-client-packages.sh`], {
      env: {
        ...process.env,
        UNIFIED_MEMORY_URL: dev.url,
        UNIFIED_MEMORY_TOKEN: tokenOf("package-check"),
        PYTHON: python,
      },
      timeout: 400_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`check-client-packages.sh failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    });
    const reports = stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    expect(reports).toEqual([
      { stored: 1200, failed: 0, requests: 3, hits: 1200, pages: 12, memory: "ready" },
      { stored: 1200, failed: 0, requests: 3, hits: 1200, pages: 12, memory: "ready" },
    ]);
    expect(stdout).toContain("both packages installed and worked");
  }, 420_000);
});
