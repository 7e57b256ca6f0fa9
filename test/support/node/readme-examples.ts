/**
 * The runnable examples of a README: each fenced block right after a `<!-- example -->` comment (or
 * `<!-- example expects: TEXT -->`, when its output must contain TEXT), run as its language says
 * (sh under `bash -eu`, ts under tsx, python) with UNIFIED_MEMORY_URL, UNIFIED_MEMORY_TOKEN and TOKEN in its environment.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../../scripts/lib/dev-secret";

const run = promisify(execFile);

export interface Example {
  /** `README.md:123` */
  where: string;
  language: "sh" | "ts" | "python";
  code: string;
  expects: string | null;
}

const LANGUAGES: Record<string, Example["language"]> = {
  sh: "sh",
  bash: "sh",
  ts: "ts",
  typescript: "ts",
  python: "python",
  py: "python",
};

export function readmeExamples(path: string): Example[] {
  const lines = readFileSync(`${ROOT}${path}`, "utf8").split("\n");
  const examples: Example[] = [];
  lines.forEach((line, i) => {
    const marker = /^<!-- example(?: expects: (.*?))? -->$/.exec(line.trim());
    if (!marker) return;
    const fence = /^```(\w+)/.exec(lines[i + 1] ?? "");
    const language = fence ? LANGUAGES[fence[1]!] : undefined;
    if (!language)
      throw new Error(`${path}:${i + 1}: an example marker must precede a sh, ts or python fence`);
    const end = lines.findIndex((l, j) => j > i + 1 && l.startsWith("```"));
    if (end < 0) throw new Error(`${path}:${i + 2}: unclosed fence`);
    examples.push({
      where: `${path}:${i + 2}`,
      language,
      code: lines.slice(i + 2, end).join("\n"),
      expects: marker[1] ?? null,
    });
  });
  return examples;
}

/** Runs one example; its output (stdout and stderr). A failure throws with the output. */
export async function runExample(example: Example, env: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(`${tmpdir()}/um-example-`);
  const options = { cwd: ROOT, env: { ...process.env, ...env }, timeout: 180_000 };
  try {
    let result: { stdout: string; stderr: string };
    if (example.language === "sh") {
      result = await run("bash", ["-eu", "-c", example.code], options);
    } else if (example.language === "python") {
      result = await run("python3", ["-c", example.code], {
        ...options,
        env: { ...options.env, PYTHONPATH: `${ROOT}clients/python` },
      });
    } else {
      linkPackages(example.code, dir);
      writeFileSync(`${dir}/example.mts`, example.code);
      result = await run(`${ROOT}node_modules/.bin/tsx`, [`${dir}/example.mts`], { ...options, cwd: dir });
    }
    return result.stdout + result.stderr;
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`${example.where} failed: ${String(error)}\n${stdout}${stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The packages a TypeScript example imports, as a user's project would have them installed:
 * unified-memory-client is the client's folder (its built dist/), anything else the repository's copy.
 */
function linkPackages(code: string, dir: string): void {
  const names = new Set<string>();
  for (const [, specifier] of code.matchAll(/from "([^".][^"]*)"/g)) {
    const parts = specifier!.split("/");
    names.add(specifier!.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
  }
  for (const name of names) {
    const target =
      name === "unified-memory-client" ? `${ROOT}clients/typescript` : `${ROOT}node_modules/${name}`;
    mkdirSync(dirname(`${dir}/node_modules/${name}`), { recursive: true });
    symlinkSync(target, `${dir}/node_modules/${name}`, "dir");
  }
}
