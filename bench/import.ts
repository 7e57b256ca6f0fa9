/**
 * npm run bench:import [-- --gb 1] [--url URL --token TOKEN]
 * npm run bench:import -- --hostile [--case NAME]
 *
 * Writes a synthetic mbox of at least --gb GB to /tmp (never into the repo): threads of replies, a mix of
 * plain, HTML-only, Latin-1 and attachment-bearing messages, `>From ` quoting and unescaped `From ` body lines.
 * Then runs the real CLI on it as a child process with --dry-run --json (and, with --url/--token, against a
 * running server) and reports records/s and the child's peak RSS (VmHWM from /proc).
 *
 * --hostile instead writes the hostile inputs of bench/lib/import-hostile-files.ts (a Slack zip bomb, an mbox
 * with a 200 MB line, vCards with 50 MB folded and quoted-printable NOTEs and a 100 MB PHOTO) and runs the CLI
 * on each with the default limits, checking that it ends within 60 s and 512 MB of peak RSS with the
 * expected errors and skips and every ordinary record imported.
 */
import { createWriteStream, existsSync, mkdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { type CliRun, runCli } from "./lib/cli-run";
import {
  base64PhotoVcard,
  foldedNoteVcard,
  longLineMbox,
  quotedPrintableNoteVcard,
  slackZipBomb,
} from "./lib/import-hostile-files";

const { values } = parseArgs({
  options: {
    gb: { type: "string", default: "1" },
    url: { type: "string" },
    token: { type: "string" },
    file: { type: "string", default: "/tmp/unified-memory-bench.mbox" },
    hostile: { type: "boolean", default: false },
    case: { type: "string" },
    dir: { type: "string", default: "/tmp/unified-memory-bench-hostile" },
  },
});
const targetBytes = Number(values.gb) * 1024 ** 3;
const file = values.file!;

function message(i: number): string {
  const thread = Math.floor(i / 5);
  const date = new Date(Date.UTC(2020, 0, 1) + i * 60_000);
  const words = "plan budget launch review hiring roadmap metrics customer contract design".split(" ");
  const body = Array.from(
    { length: 40 },
    (_, n) => `${words[(i + n) % words.length]} line ${n} of message ${i}.`,
  ).join("\n");
  const headers = [
    `From: Person ${i % 97} <p${i % 97}@example.com>`,
    `To: Person ${(i + 1) % 97} <p${(i + 1) % 97}@example.com>`,
    `Subject: ${i % 5 === 0 ? "" : "Re: "}thread ${thread}`,
    `Date: ${date.toUTCString()}`,
    `Message-ID: <m${i}@bench.example>`,
    i % 5 === 0 ? "" : `In-Reply-To: <m${i - 1}@bench.example>`,
    `X-Gmail-Labels: Inbox,Thread ${thread % 50}`,
  ].filter(Boolean);
  const kind = i % 10;
  if (kind === 7) {
    return `${headers.join("\n")}\nContent-Type: text/html; charset=utf-8\n\n<html><body><p>${body.replaceAll("\n", "</p><p>")}</p></body></html>\n`;
  }
  if (kind === 9) {
    const attachment = Buffer.alloc(1500, i % 256)
      .toString("base64")
      .replace(/.{76}/g, "$&\n");
    return `${headers.join("\n")}\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b${i}"\n\n--b${i}\nContent-Type: text/plain; charset=utf-8\n\n${body}\n\n>From the quoted archive\n\nFrom my phone, unescaped\n--b${i}\nContent-Type: application/octet-stream; name="f${i}.bin"\nContent-Disposition: attachment; filename="f${i}.bin"\nContent-Transfer-Encoding: base64\n\n${attachment}\n--b${i}--\n`;
  }
  return `${headers.join("\n")}\nContent-Type: text/plain; charset=utf-8\n\n${body}\n`;
}

async function generate(): Promise<number> {
  if (existsSync(file) && statSync(file).size >= targetBytes) {
    const count = Number((await readFile(`${file}.count`, "utf8").catch(() => "0")).trim());
    if (count > 0) return count;
  }
  const out = createWriteStream(file);
  let written = 0;
  let i = 0;
  while (written < targetBytes) {
    const chunk: string[] = [];
    for (let n = 0; n < 1000; n++, i++) {
      chunk.push(
        `From p${i % 97}@example.com ${new Date(Date.UTC(2020, 0, 1) + i * 60_000).toUTCString().replace(",", "")}\n${message(i)}\n`,
      );
    }
    const data = chunk.join("");
    written += Buffer.byteLength(data);
    if (!out.write(data)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(resolve));
  await import("node:fs/promises").then((fs) => fs.writeFile(`${file}.count`, String(i)));
  return i;
}

interface HostileCase {
  name: string;
  format: string;
  file: string;
  make: (path: string) => Promise<unknown>;
  /** What a correct run reports: items, and the errors and skip reasons expected (as patterns). */
  items: number;
  errors: RegExp[];
  skipped: RegExp[];
}

const MAX_SECONDS = 60;
const MAX_RSS_MB = 512;

function hostileCases(dir: string): HostileCase[] {
  return [
    {
      name: "slack-zip-bomb",
      format: "slack",
      file: `${dir}/slack-bomb.zip`,
      make: (path) => slackZipBomb(path),
      // 11 day files that inflate to 400 MB, 1 that declares 1 KB and inflates to 400 MB (4.8 GB in all):
      // each stopped at the per-file limit. The 12 ordinary day files (11 of them declaring 400 MB) import:
      // 24 messages.
      items: 24,
      errors: Array.from({ length: 12 }, () => /^bomb\/.*inflates to more than 128 MB \(--max-file-mb\)/),
      skipped: [],
    },
    {
      name: "mbox-200mb-line",
      format: "mbox",
      file: `${dir}/long-line.mbox`,
      make: (path) => longLineMbox(path),
      items: 6,
      errors: [],
      skipped: [/^message over 64 MB \(--max-record-mb\)$/],
    },
    {
      name: "vcf-folded-note-50mb",
      format: "vcf",
      file: `${dir}/folded-note.vcf`,
      make: (path) => foldedNoteVcard(path),
      items: 6,
      errors: [],
      skipped: [],
    },
    {
      name: "vcf21-quoted-printable-note-50mb",
      format: "vcf",
      file: `${dir}/quoted-printable-note.vcf`,
      make: (path) => quotedPrintableNoteVcard(path),
      items: 6,
      errors: [],
      skipped: [],
    },
    {
      name: "vcf-base64-photo-100mb",
      format: "vcf",
      file: `${dir}/big-photo.vcf`,
      make: (path) => base64PhotoVcard(path),
      items: 6,
      errors: [],
      skipped: [],
    },
  ];
}

async function runHostile(): Promise<void> {
  mkdirSync(values.dir!, { recursive: true });
  const cases = hostileCases(values.dir!).filter((c) => !values.case || c.name === values.case);
  let failures = 0;
  for (const c of cases) {
    if (!existsSync(c.file)) await c.make(c.file);
    const r = await runCli([c.format, c.file, "--dry-run", "--json"]);
    const errors = (r.summary.errors as { position: string; message: string }[]).map(
      (e) => `${e.position}: ${e.message}`,
    );
    const reasons = Object.entries(r.summary.skippedReasons as Record<string, number>).flatMap(
      ([reason, n]) => Array.from({ length: n }, () => reason),
    );
    const matches = (found: string[], expected: RegExp[]) =>
      found.length === expected.length && expected.every((re, i) => re.test(found[i] ?? ""));
    const problems = [
      r.seconds > MAX_SECONDS ? `took over ${MAX_SECONDS} s` : "",
      r.peakRssMb > MAX_RSS_MB ? `peak RSS over ${MAX_RSS_MB} MB` : "",
      Number(r.summary.items) !== c.items ? `${r.summary.items} items, expected ${c.items}` : "",
      matches(
        errors.map((e) => e.replace(/^[^:]*: /, "")),
        c.errors,
      )
        ? ""
        : "unexpected errors",
      matches(reasons, c.skipped) ? "" : "unexpected skips",
    ].filter(Boolean);
    if (problems.length > 0) failures++;
    console.log(
      `${c.name}: ${(statSync(c.file).size / 1024 / 1024).toFixed(1)} MB file; ${r.seconds.toFixed(1)} s, ` +
        `CPU ${r.cpuSeconds.toFixed(1)} s, peak RSS ${r.peakRssMb} MB; ${r.summary.records} records, ` +
        `${r.summary.items} items, ${r.summary.skipped} skipped, ${errors.length} errors: ` +
        `${problems.length === 0 ? "OK" : `FAILED (${problems.join("; ")})`}`,
    );
    for (const e of errors.slice(0, 3)) console.log(`  error ${e}`);
    if (errors.length > 3) console.log(`  … and ${errors.length - 3} more errors like these`);
    for (const [reason, n] of Object.entries(r.summary.skippedReasons as Record<string, number>))
      console.log(`  skipped ${n}: ${reason}`);
  }
  process.exitCode = failures > 0 ? 1 : 0;
}

async function runMbox(): Promise<void> {
  const generateStarted = performance.now();
  const messages = await generate();
  const size = statSync(file).size;
  console.log(
    `mbox: ${file}, ${(size / 1024 ** 3).toFixed(2)} GB, ${messages.toLocaleString("en")} messages (ready in ${((performance.now() - generateStarted) / 1000).toFixed(0)} s)`,
  );

  const report = (label: string, r: CliRun) => {
    const records = Number(r.summary.records);
    console.log(
      `${label}: ${records.toLocaleString("en")} records, ${Number(r.summary.items).toLocaleString("en")} items, ` +
        `${(r.summary.errors as unknown[]).length} errors in ${r.seconds.toFixed(1)} s = ` +
        `${Math.round(records / r.seconds).toLocaleString("en")} records/s, ${(size / 1024 ** 2 / r.seconds).toFixed(1)} MB/s, peak RSS ${r.peakRssMb} MB; ` +
        `CPU ${r.cpuSeconds.toFixed(1)} s = ${Math.round(records / Math.max(r.cpuSeconds, 0.01)).toLocaleString("en")} records per CPU-second`,
    );
    console.log(
      `  summary: ${JSON.stringify({ ...r.summary, errors: (r.summary.errors as unknown[]).length })}`,
    );
  };

  report("dry run", await runCli(["mbox", file, "--dry-run", "--json"]));
  if (values.url && values.token) {
    report("to server", await runCli(["mbox", file, "--json", "--url", values.url, "--token", values.token]));
  }
}

if (values.hostile) await runHostile();
else await runMbox();
