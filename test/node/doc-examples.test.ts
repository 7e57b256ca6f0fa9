/**
 * Every shell example of README.md and docs/*.md works as written against `npm run dev -- --fake-llm --demo`:
 * each file's blocks run in order in one bash (as a reader's shell keeps its variables), under `-eu`, with
 * the documentation's local addresses pointed at this service. Which blocks run, and how to mark one that
 * must not: test/support/node/doc-shell-blocks.ts.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/dev-secret";
import { signDevToken } from "../../scripts/lib/token";
import { freePort, untilOutput } from "../support/node/dev-command";
import { documentationFiles, pointedAt, shellBlocks } from "../support/node/doc-shell-blocks";

const run = promisify(execFile);
const SECRET = "doc-examples-secret-that-is-long-enough-0123456789";
const dataDir = mkdtempSync(`${tmpdir()}/um-doc-examples-`);
const BLOCK = "@@doc-block ";
let dev: ChildProcess;
let url = "";

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _ignored, ...env } = process.env;
  dev = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts", "--fake-llm", "--demo"], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), DATA_DIR: dataDir, AUTH_JWT_SECRET: SECRET },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  dev.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  dev.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  await untilOutput(dev, () => output, "[dev] Try:", 240_000);
}, 300_000);

afterAll(async () => {
  if (dev?.pid && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev.once("exit", resolve));
    process.kill(-dev.pid, "SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the documentation's shell examples", () => {
  it.each(documentationFiles().filter((file) => shellBlocks(file).length > 0))(
    "in %s run as written against npm run dev -- --fake-llm --demo",
    async (file) => {
      const blocks = shellBlocks(file);
      const script = blocks
        .map((b) => `echo '${BLOCK}${b.where}'; echo '${BLOCK}${b.where}' >&2\n${pointedAt(b.script, url)}`)
        .join("\n");
      const token = signDevToken(SECRET, "ada");
      let output: string;
      try {
        const result = await run("bash", ["-eu", "-c", script], {
          cwd: ROOT,
          timeout: 240_000,
          maxBuffer: 64 * 1024 * 1024,
          env: {
            ...process.env,
            // Debian's /etc/bash.bashrc reads PS1, unbound in a non-interactive shell under -u.
            PS1: "",
            AUTH_JWT_SECRET: SECRET,
            TOKEN: token,
            UNIFIED_MEMORY_URL: url,
            UNIFIED_MEMORY_TOKEN: token,
          },
        });
        output = result.stdout;
      } catch (error) {
        const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
        const failed =
          [...stderr.matchAll(new RegExp(`${BLOCK}(\\S+)`, "g"))].at(-1)?.[1] ?? "(before any block)";
        throw new Error(
          `the example at ${failed} failed: ${String(error)}\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
        );
      }
      for (const block of blocks) {
        if (block.expects === null) continue;
        const start = output.indexOf(`${BLOCK}${block.where}\n`);
        const next = output.indexOf(BLOCK, start + BLOCK.length);
        expect(output.slice(start, next < 0 ? undefined : next), block.where).toContain(block.expects);
      }
    },
    300_000,
  );
});
