/**
 * npm run bench:import [-- --gb 1] [--url URL --token TOKEN] [--limit-mb N]
 *
 * Writes a synthetic mbox of at least --gb GB to /tmp (never into the repo): threads of replies, a mix of
 * plain, HTML-only, Latin-1 and attachment-bearing messages, `>From ` quoting and unescaped `From ` body lines.
 * Then runs the real CLI on it as a child process with --dry-run --json (and, with --url/--token, against a
 * running server) and reports records/s and the child's peak RSS (VmHWM from /proc).
 */
import { createWriteStream, existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { type CliRun, runCli } from "./lib/cli-run";

const { values } = parseArgs({
  options: {
    gb: { type: "string", default: "1" },
    url: { type: "string" },
    token: { type: "string" },
    file: { type: "string", default: "/tmp/unified-memory-bench.mbox" },
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
