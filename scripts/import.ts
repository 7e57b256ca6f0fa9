/**
 * npm run -s import -- <format> <path>... [--url URL] [--token TOKEN] [--source NAME] [--max-…-mb N] [--dry-run] [--json]
 *
 * Reads an export (mail, calendars, contacts, …), turns it into items and sends them through POST /items in
 * batches. Exit code 0 when everything was imported or deliberately skipped, 1 when records failed,
 * 2 for a usage error. See README "Import your data".
 */
import { pathToFileURL } from "node:url";
import type { ApiItem } from "../src/import/batches";
import { FORMATS } from "../src/import/formats";
import { runImport } from "../src/import/run-import";
import { parseImportArgs, USAGE, UsageError } from "./lib/import/args";
import { expandInputs, InputError, nodeFileReader } from "./lib/import/input-files";
import { jsonLine, progressLine, samplesText, summaryTable } from "./lib/import/report";
import { createSender, FatalSendError } from "./lib/import/sender";

export async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseImportArgs>;
  try {
    args = parseImportArgs(argv, process.env, Object.keys(FORMATS));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  const format = FORMATS[args.format]!;
  let files: Awaited<ReturnType<typeof expandInputs>>;
  try {
    files = await expandInputs(args.paths, format.extensions);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const counter = { read: 0, total: files.reduce((sum, f) => sum + f.size, 0) };
  const started = performance.now();
  const terminal = !args.json && process.stderr.isTTY;
  let lastDraw = 0;
  const samples: ApiItem[] = [];
  const sender = args.dryRun ? null : createSender({ url: args.url, token: args.token! });
  try {
    const summary = await runImport({
      format: args.format,
      files: files.length,
      source: args.source ?? format.defaultSource,
      events: format.read(files, { reader: nodeFileReader(counter), date: args.date, limits: args.limits }),
      send: sender?.send,
      concurrency: args.concurrency,
      samples: args.dryRun ? samples : undefined,
      onProgress: (s) => {
        const now = performance.now();
        if (!terminal || now - lastDraw < 200) return;
        lastDraw = now;
        process.stderr.write(`\r\x1b[2K${progressLine(s, counter, now - started)}`);
      },
    });
    if (terminal) process.stderr.write("\r\x1b[2K");
    const elapsedMs = performance.now() - started;
    if (!args.json) {
      if (args.dryRun && samples.length > 0) process.stdout.write(`${samplesText(samples)}\n\n`);
      process.stdout.write(`${summaryTable(summary, { dryRun: args.dryRun, elapsedMs })}\n`);
    } else process.stdout.write(`${jsonLine(summary)}\n`);
    return summary.errors.length > 0 ? 1 : 0;
  } catch (error) {
    if (terminal) process.stderr.write("\n");
    if (error instanceof FatalSendError) {
      process.stderr.write(`Import stopped: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`Import failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
