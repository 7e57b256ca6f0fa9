import { mkdir, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { USAGE } from "../../scripts/lib/import/args";
import { expandInputs, nodeFileReader } from "../../scripts/lib/import/input-files";
import { FORMATS } from "../../src/import/formats";
import { DEFAULT_LIMITS, type ImportLimits, LIMIT_FLAGS, limitsFromFlags } from "../../src/import/limits";
import type { ImportEvent } from "../../src/import/records";
import { collect } from "../support/import-events";
import { zipOf } from "../support/import-hostile";

const MB = 1024 * 1024;
const SMALL: ImportLimits = {
  maxFileBytes: 1 * MB,
  maxExportBytes: 8 * MB,
  maxRecordBytes: 1 * MB,
  maxValueBytes: 0.25 * MB,
};

let folders = 0;
/** Writes the files into a new folder under /tmp; returns the folder. */
async function folderWith(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = `/tmp/import-limits-${Date.now()}-${folders++}`;
  for (const [name, data] of Object.entries(files)) {
    const path = `${dir}/${name}`;
    await mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await writeFile(path, data);
  }
  return dir;
}

/** What the import command reads from `paths` as `format`, with these limits. */
async function importEvents(format: string, paths: string[], limits: ImportLimits = SMALL) {
  const definition = FORMATS[format]!;
  const files = await expandInputs(paths, definition.extensions);
  const events: ImportEvent[] = [];
  for await (const event of definition.read(files, { reader: nodeFileReader({ read: 0, total: 0 }), limits }))
    events.push(event);
  return collect(events);
}

const mail = (n: number, body = `message ${n}`) =>
  `From a@example.com Mon Jan  1 00:00:0${n} 2024\nFrom: a@example.com\nSubject: m${n}\nDate: Mon, 1 Jan 2024 00:00:0${n} +0000\nMessage-ID: <m${n}@example.com>\n\n${body}\n\n`;

describe("the import command's limits", () => {
  it("are flags in MB with defaults, listed in the usage text", () => {
    expect(limitsFromFlags({})).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS).toEqual({
      maxFileBytes: 128 * MB,
      maxExportBytes: 512 * MB,
      maxRecordBytes: 64 * MB,
      maxValueBytes: 1 * MB,
    });
    const flags = {
      "max-file-mb": "0.5",
      "max-export-mb": "2",
      "max-record-mb": "3",
      "max-value-mb": "0.25",
    };
    expect(limitsFromFlags(flags)).toEqual({
      maxFileBytes: 0.5 * MB,
      maxExportBytes: 2 * MB,
      maxRecordBytes: 3 * MB,
      maxValueBytes: 0.25 * MB,
    });
    for (const bad of ["0", "-1", "many", "1e3", ""]) {
      expect(limitsFromFlags({ "max-record-mb": bad }), bad).toBe(
        "--max-record-mb must be a number of MB above 0, such as 128 or 0.5",
      );
    }
    for (const flag of Object.values(LIMIT_FLAGS)) expect(USAGE).toContain(`--${flag.flag} N`);
  });

  it("slack: a zip entry past --max-file-mb is an error naming the archive, the entry and the limit; the rest imports", async () => {
    const day = (ts: string, text: string) => JSON.stringify([{ type: "message", user: "U1", ts, text }]);
    const zip = zipOf(
      {
        "export/users.json": JSON.stringify([{ id: "U1", name: "ada", real_name: "Ada" }]),
        "export/channels.json": JSON.stringify([{ id: "C1", name: "general" }]),
        "export/general/2024-01-01.json": day("1704067200.000100", "first"),
        "export/general/2024-01-02.json": `[{"type":"message","user":"U1","ts":"1704153600.000100","text":"${"A".repeat(3 * MB)}"}]`,
        "export/general/2024-01-03.json": day("1704240000.000100", "third"),
      },
      { "export/general/2024-01-03.json": 400 * MB },
    );
    const dir = await folderWith({ "slack.zip": zip });
    const { items, errors } = await importEvents("slack", [`${dir}/slack.zip`]);
    expect(items.map((i) => i.body)).toEqual(["first", "third"]);
    expect(errors).toEqual([
      {
        type: "error",
        message: "export/general/2024-01-02.json inflates to more than 1 MB (--max-file-mb): not read",
        at: { file: `${dir}/slack.zip`, position: "export/general/2024-01-02.json" },
      },
    ]);
  });

  it("slack: loose files past --max-export-mb stop the export with an error, the lists read first", async () => {
    const big = JSON.stringify([
      { type: "message", user: "U1", ts: "1704067200.000100", text: "x".repeat(900_000) },
    ]);
    const files = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`general/2024-01-0${i}.json`, big]),
    );
    const dir = await folderWith({ "users.json": "[]", ...files });
    const { errors } = await importEvents("slack", [dir]);
    expect(
      errors.map((e) => e.message),
      JSON.stringify(errors),
    ).toEqual([
      "the export's files come to more than 8 MB (--max-export-mb): this file and the ones after it were not read",
    ]);
  });

  it("mbox and eml: a message past --max-record-mb is skipped with the limit as its reason; the others import", async () => {
    const long = mail(2, "y".repeat(2 * MB));
    const dir = await folderWith({
      "a.mbox": mail(1) + long + mail(3),
      "big.eml": long.slice(long.indexOf("\n") + 1),
    });
    const mbox = await importEvents("mbox", [`${dir}/a.mbox`]);
    expect(mbox.items.map((i) => i.title)).toEqual(["m1", "m3"]);
    expect(mbox.skipped.map((s) => s.reason)).toEqual(["message over 1 MB (--max-record-mb)"]);
    const eml = await importEvents("eml", [`${dir}/big.eml`]);
    expect(eml.skipped.map((s) => s.reason)).toEqual(["message over 1 MB (--max-record-mb)"]);
  });

  it("vcf: streamed from the file, a value past --max-value-mb is cut and a card past --max-record-mb skipped", async () => {
    const card = (name: string, extra = "") =>
      `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:${name}\r\n${extra}END:VCARD\r\n`;
    const note = `NOTE:${Array.from({ length: 20_000 }, () => "n".repeat(74)).join("\r\n ")}\r\n`;
    const many = Array.from({ length: 8 }, () => `NOTE:${"m".repeat(200_000)}\r\n`).join("");
    const dir = await folderWith({
      "c.vcf": card("A") + card("Long Note", note) + card("Many Notes", many) + card("B"),
    });
    const { items, skipped } = await importEvents("vcf", [dir]);
    expect(items.map((i) => i.title)).toEqual(["A", "Long Note", "B"]);
    expect(items[1]!.metadata?.truncatedValues).toEqual([{ property: "NOTE", bytes: 20_000 * 74 }]);
    expect(items[1]!.body).toHaveLength(0.25 * MB);
    expect(skipped.map((s) => s.reason)).toEqual(["card over 1 MB (--max-record-mb)"]);
  });

  it("ics, vtt, srt and markdown: a file past --max-file-mb is an error; the other files import", async () => {
    const filler = "x".repeat(1.5 * MB);
    const ics = (uid: string, extra = "") =>
      `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:${uid}\r\nDTSTART:20240101T100000Z\r\nDESCRIPTION:${extra}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
    const vtt = (words: string) => `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nA: ${words}\n`;
    const srt = (words: string) => `1\n00:00:01,000 --> 00:00:02,000\n${words}\n`;
    const dir = await folderWith({
      "cal/ok.ics": ics("ok"),
      "cal/big.ics": ics("big", filler),
      "calls/2024-01-01-ok.vtt": vtt("hi"),
      "calls/2024-01-01-big.vtt": vtt(filler),
      "subs/2024-01-01-ok.srt": srt("hi"),
      "subs/2024-01-01-big.srt": srt(filler),
      "notes/ok.md": "# Ok\n[[Big]]",
      "notes/Big.md": `# Big\n${filler}`,
    });
    const cases: [string, string, string][] = [
      ["ics", "cal", "ok"],
      ["vtt", "calls", "2024-01-01-ok"],
      ["srt", "subs", "2024-01-01-ok"],
      ["markdown", "notes", "Ok"],
    ];
    for (const [format, folder, title] of cases) {
      const { items, errors } = await importEvents(format, [`${dir}/${folder}`]);
      expect(
        items.map((i) => i.title ?? i.externalId),
        format,
      ).toEqual([title]);
      expect(
        errors.map((e) => e.message.replace(/\d+ bytes/, "N bytes")),
        format,
      ).toEqual(["the file is N bytes, over 1 MB (--max-file-mb): not read"]);
    }
  });

  it("github and chatgpt: streamed record by record, a record past --max-record-mb is skipped; the others import", async () => {
    const issue = (n: number, body = "") => ({
      number: n,
      title: `issue ${n}`,
      body,
      created_at: "2024-01-01T00:00:00Z",
      html_url: `https://github.com/a/b/issues/${n}`,
    });
    const conversation = (id: string, text: string) => ({
      id,
      title: id,
      create_time: 1704067200,
      current_node: "n1",
      mapping: { n1: { message: { author: { role: "user" }, content: { parts: [text] } } } },
    });
    const big = "z".repeat(1.5 * MB);
    const dir = await folderWith({
      "issues.ndjson": [issue(1), issue(2, big), issue(3)].map((r) => JSON.stringify(r)).join("\n"),
      "conversations.json": JSON.stringify([
        conversation("c1", "hello"),
        conversation("c2", big),
        conversation("c3", "bye"),
      ]),
    });
    const github = await importEvents("github", [`${dir}/issues.ndjson`]);
    expect(github.items.map((i) => i.externalId)).toEqual(["a/b#1", "a/b#3"]);
    expect(github.skipped).toEqual([
      {
        type: "skipped",
        reason: "record over 1 MB (--max-record-mb)",
        at: { file: `${dir}/issues.ndjson`, position: "line 2" },
      },
    ]);
    const chatgpt = await importEvents("chatgpt", [`${dir}/conversations.json`]);
    expect(chatgpt.items.map((i) => i.externalId)).toEqual(["c1", "c3"]);
    expect(chatgpt.skipped.map((s) => [s.reason, s.at.position])).toEqual([
      ["record over 1 MB (--max-record-mb)", "record 2"],
    ]);
  });
});
