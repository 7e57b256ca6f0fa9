/**
 * The shell examples of the documentation (README.md and docs/*.md): every fenced block whose info string is
 * sh, bash, shell or console, as the commands a reader would type. A block is not run when the line before
 * its fence is `<!-- not-run -->` (or `<!-- not-run: why -->`), or when its info string says `no-run`
 * (```sh no-run): deploy commands, installs of other tools, files the reader has and the check has not.
 * A transcript (lines starting with "$ ") runs only its commands; other lines are their output. Lines that
 * install the project, start the service or run the test suite (npm install, npm ci, npm run dev, npm test)
 * are what the check itself does first, so they are left out. `<!-- example expects: TEXT -->` before a
 * fence: the block's output must contain TEXT.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { ROOT } from "../../../scripts/lib/dev-secret";

export interface ShellBlock {
  /** `README.md:123` (the fence's line). */
  where: string;
  script: string;
  expects: string | null;
}

const SHELL_FENCE = /^```(sh|bash|shell|console)\b(.*)$/;
const NOT_RUN = /^<!-- not-run(?::.*)? -->$/;
const EXPECTS = /^<!-- example(?: expects: (.*?))? -->$/;
/** The check's own set-up: installing the project, starting the service, the test suite. */
const SET_UP = /^([A-Z_][A-Z0-9_]*=\S*\s+)*(npm (install|i|ci)|npm run dev|npm test|npm run test)(\s|$)/;

/** README.md and every docs/*.md that exists, relative to the repository root. */
export function documentationFiles(): string[] {
  const docs = existsSync(`${ROOT}docs`)
    ? readdirSync(`${ROOT}docs`, { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".md"))
        .sort()
        .map((f) => `docs/${f}`)
    : [];
  return ["README.md", ...docs];
}

/** The blocks of one file that are to be run (the marked ones left out). */
export function shellBlocks(path: string): ShellBlock[] {
  const lines = readFileSync(`${ROOT}${path}`, "utf8").split("\n");
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = SHELL_FENCE.exec(lines[i] ?? "");
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
    if (end < 0) throw new Error(`${path}:${i + 1}: unclosed fence`);
    const before = (lines[i - 1] ?? "").trim();
    const body = lines.slice(i + 1, end);
    const skipped = NOT_RUN.test(before) || /\bno-run\b/.test(fence[2] ?? "");
    if (!skipped) {
      const script = commandsOf(body);
      if (script.trim() !== "") {
        blocks.push({ where: `${path}:${i + 1}`, script, expects: EXPECTS.exec(before)?.[1] ?? null });
      }
    }
    i = end;
  }
  return blocks;
}

/** The commands of a block: a transcript's "$ " lines (with their continuations), else every line. */
function commandsOf(body: string[]): string {
  const transcript = body.some((l) => l.startsWith("$ "));
  const commands: string[] = [];
  let continuing = false;
  for (const line of body) {
    if (transcript && !continuing && !line.startsWith("$ ")) continue;
    const command: string = transcript && !continuing ? line.slice(2) : line;
    if (!continuing && SET_UP.test(command.trim())) continue;
    commands.push(command);
    continuing = command.endsWith("\\");
  }
  return commands.join("\n");
}

/** The documentation's local addresses (http://127.0.0.1:8871, localhost:8787) as the running service's. */
export function pointedAt(script: string, url: string): string {
  return script.replace(/https?:\/\/(127\.0\.0\.1|localhost):\d+|\blocalhost:8787\b/g, url);
}
