/** `import <format> <path>... [--url] [--token] [--source] [--date] [--max-…-mb N] [--dry-run] [--json]` → options. */
import { parseArgs } from "node:util";
import { type ImportLimits, LIMIT_FLAGS, limitsFromFlags } from "../../../src/import/limits";

export interface ImportArgs {
  format: string;
  paths: string[];
  url: string;
  token?: string;
  source?: string;
  date?: string;
  dryRun: boolean;
  json: boolean;
  concurrency: number;
  limits: ImportLimits;
}

export class UsageError extends Error {}

export const USAGE = `Usage: npm run -s import -- <format> <path>... [options]
       unified-memory import <format> <path>... [options]

Options:
  --url URL        the service (default $UNIFIED_MEMORY_URL or http://127.0.0.1:8787)
  --token TOKEN    a bearer token with items:write (default $UNIFIED_MEMORY_TOKEN)
  --source NAME    the items' source (default: the format's name)
  --date DATE      occurredAt for call transcripts without a date (ISO 8601)
  --concurrency N  batches in flight (default 4)
  --dry-run        parse and summarise, send nothing
  --json           print one JSON summary object as the last line

Limits (MB; a hostile or broken export stops at them with a reason):
  --max-file-mb N    a file read whole (.ics, .vtt/.srt, a note, a Slack JSON file, also inside a .zip) (default ${LIMIT_FLAGS.maxFileBytes.defaultMb})
  --max-export-mb N  a Slack export in all: what its .zip's files inflate to, or its loose files (default ${LIMIT_FLAGS.maxExportBytes.defaultMb})
  --max-record-mb N  one mbox/.eml message, vCard, or GitHub/ChatGPT record (default ${LIMIT_FLAGS.maxRecordBytes.defaultMb})
  --max-value-mb N   one vCard value such as a NOTE; longer ones are cut (default ${LIMIT_FLAGS.maxValueBytes.defaultMb})`;

export function parseImportArgs(
  argv: string[],
  env: Record<string, string | undefined>,
  formats: string[],
): ImportArgs {
  let parsed: ReturnType<typeof parseArgsStrict>;
  try {
    parsed = parseArgsStrict(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const [format, ...paths] = positionals;
  if (!format) throw new UsageError("No format given");
  if (!formats.includes(format))
    throw new UsageError(`Unknown format "${format}"; one of: ${formats.join(", ")}`);
  if (paths.length === 0) throw new UsageError("No input path given");
  const url = values.url ?? env.UNIFIED_MEMORY_URL ?? "http://127.0.0.1:8787";
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new UsageError(`--url must be an http(s) URL, not "${url}"`);
  const token = values.token ?? env.UNIFIED_MEMORY_TOKEN;
  const dryRun = values["dry-run"] ?? false;
  if (!dryRun && !token)
    throw new UsageError("No token: pass --token or set UNIFIED_MEMORY_TOKEN (or use --dry-run)");
  if (values.source !== undefined && !/^\S.{0,99}$/.test(values.source))
    throw new UsageError("--source must be 1-100 characters");
  if (values.date !== undefined && Number.isNaN(Date.parse(values.date)))
    throw new UsageError(`--date is not a date: "${values.date}"`);
  const concurrency = Number(values.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
    throw new UsageError("--concurrency must be 1-32");
  const limits = limitsFromFlags(values);
  if (typeof limits === "string") throw new UsageError(limits);
  return {
    format,
    paths,
    url,
    token,
    source: values.source,
    date: values.date === undefined ? undefined : new Date(values.date).toISOString(),
    dryRun,
    json: values.json ?? false,
    concurrency,
    limits,
  };
}

function parseArgsStrict(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: "string" },
      token: { type: "string" },
      source: { type: "string" },
      date: { type: "string" },
      concurrency: { type: "string" },
      "dry-run": { type: "boolean" },
      json: { type: "boolean" },
      "max-file-mb": { type: "string" },
      "max-export-mb": { type: "string" },
      "max-record-mb": { type: "string" },
      "max-value-mb": { type: "string" },
    },
  });
}
