/**
 * The Python client's own unit tests (a scripted local server; no worker), on the machine's python3 and,
 * where it is installed, on Python 3.9 (the oldest the package supports); and its types, checked by
 * pyright in strict mode for Python 3.9.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/dev-secret";

const run = promisify(execFile);
const PACKAGE = `${ROOT}clients/python`;

async function unittest(python: string) {
  // unittest reports on stderr; a failure rejects with the output attached.
  const { stderr } = await run(python, ["-m", "unittest", "-v", "tests.test_unit"], {
    cwd: PACKAGE,
    timeout: 120_000,
  });
  return stderr;
}

/** A Python 3.9: PYTHON39, python3.9 on the PATH, or one that pyenv installed. */
async function python39(): Promise<string | null> {
  const pyenv = `${process.env.PYENV_ROOT ?? `${homedir()}/.pyenv`}/versions`;
  const installed = existsSync(pyenv)
    ? readdirSync(pyenv)
        .filter((v) => v.startsWith("3.9."))
        .map((v) => `${pyenv}/${v}/bin/python3.9`)
    : [];
  for (const candidate of [process.env.PYTHON39, "python3.9", ...installed]) {
    if (!candidate) continue;
    try {
      const { stdout } = await run(candidate, ["-c", "import sys; print(sys.version_info[:2])"]);
      if (stdout.trim() === "(3, 9)") return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

describe("the Python client, offline", () => {
  it("passes its unit tests on python3", async () => {
    const out = await unittest("python3");
    expect(out).toMatch(/Ran \d+ tests/);
    expect(out).toMatch(/\nOK\s*$/);
    expect(out).not.toMatch(/skipped/);
  });

  it("passes its unit tests on Python 3.9 when this machine has it", async (context) => {
    const python = await python39();
    if (!python) return context.skip();
    expect(await unittest(python)).toMatch(/\nOK\s*$/);
  });

  it("is typed: pyright strict for Python 3.9 finds nothing", async () => {
    const { stdout } = await run(`${ROOT}node_modules/.bin/pyright`, ["--outputjson"], {
      cwd: PACKAGE,
      timeout: 120_000,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const report = JSON.parse(stdout) as {
      summary: { errorCount: number; filesAnalyzed: number };
      generalDiagnostics: unknown[];
    };
    expect(report.generalDiagnostics).toEqual([]);
    expect(report.summary.filesAnalyzed).toBeGreaterThan(5);
  });
});
