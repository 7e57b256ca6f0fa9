/**
 * The console's Import page in a real browser (Debian's Chromium through playwright-core) against
 * `npm run dev -- --fake-llm`: a user chooses the real mbox, ics, vcf and Slack test exports, uploads each,
 * and the page follows the import to the same counts the import command gives for the file; a zip bomb ends
 * as failed with its reason. Screenshots go to bench/results/console/.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { zipSync } from "fflate";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/dev-secret";
import { nodeFileReader } from "../../scripts/lib/import/input-files";
import { signInLink } from "../../scripts/lib/token";
import { FORMATS } from "../../src/import/formats";
import { DEFAULT_LIMITS } from "../../src/import/limits";
import { runImport } from "../../src/import/run-import";
import { type Browser, launchBrowser } from "../support/node/browser";
import { type DevCommand, startDevCommand } from "../support/node/dev-command";

const SECRET = "console-import-test-secret-that-is-long-enough-0123";
const SHOTS = `${ROOT}bench/results/console`;
const FIXTURES = `${ROOT}test/fixtures/import`;

let dev: DevCommand;
let browser: Browser;
let folder: string;
const pageErrors: string[] = [];

/** Every file under `dir`, relative to it. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** The test exports as a user has them: an mbox of the .eml samples, a calendar, contacts, a Slack .zip. */
function writeExports(): Record<string, { format: string; path: string }> {
  const eml = ["mixed.eml", "bounce.eml", "calendar-event.eml"].map((name) =>
    readFileSync(`${FIXTURES}/eml/${name}`, "utf8").replace(/\r\n/g, "\n"),
  );
  const mbox = eml.map((m) => `From sender@example.com Thu Jan  4 10:00:00 2024\n${m}\n`).join("\n");
  const slackDir = `${FIXTURES}/slack/hfaran-testarchive`;
  const slack = zipSync(
    Object.fromEntries(walk(slackDir).map((file) => [relative(slackDir, file), readFileSync(file)])),
  );
  const bomb = zipSync({ "users.json": new Uint8Array(17 * 1024 * 1024).fill(48) }, { level: 9 });
  const files = {
    "mail.mbox": { format: "mbox", data: mbox },
    "calendar.ics": { format: "ics", data: readFileSync(`${FIXTURES}/ics/Office-2012-owa.ics`) },
    "contacts.vcf": { format: "vcf", data: readFileSync(`${FIXTURES}/vcf/John_Doe_IPHONE.vcf`) },
    "slack-export.zip": { format: "slack", data: slack },
    "bomb.zip": { format: "slack", data: bomb },
  };
  return Object.fromEntries(
    Object.entries(files).map(([name, { format, data }]) => {
      writeFileSync(join(folder, name), data);
      return [name, { format, path: join(folder, name) }];
    }),
  );
}

/** What the import command counts for the file (its readers and pipeline, sending nothing). */
async function commandSummary(format: string, path: string) {
  const file = { path, relative: path, size: statSync(path).size, mtime: statSync(path).mtime };
  const reader = nodeFileReader({ read: 0, total: file.size });
  return runImport({
    format,
    files: 1,
    source: format,
    events: FORMATS[format]!.read([file], { reader, limits: DEFAULT_LIMITS }),
  });
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  folder = mkdtempSync(`${tmpdir()}/um-import-files-`);
  dev = await startDevCommand(["--fake-llm"], SECRET);
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
}, 60_000);

async function importPage(user: string): Promise<Page> {
  const page = await browser.context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.setDefaultNavigationTimeout(60_000);
  await page.goto(await signInLink(dev.url, SECRET, user));
  await page.waitForURL(/\/console\/$/);
  await page.getByRole("link", { name: "Import", exact: true }).click();
  await page.waitForURL(/\/console\/import$/);
  await page.getByLabel(/^File/).waitFor();
  return page;
}

/** Uploads the file through the page and waits for the import to end; answers the counts table. */
async function uploadThroughPage(page: Page, path: string, format: string): Promise<Record<string, string>> {
  await page.getByLabel(/^File/).setInputFiles(path);
  await page.getByLabel("Format").selectOption(format);
  await page.getByRole("button", { name: "Upload and import" }).click();
  await page.waitForURL(/\/console\/import\?id=/);
  const table = page.locator(
    "table.import-counts[data-status='done'], table.import-counts[data-status='failed']",
  );
  await table.waitFor({ timeout: 60_000 });
  const rows = await table
    .locator("tr")
    .evaluateAll((trs) =>
      trs.map((tr) => [tr.querySelector("th")?.textContent ?? "", tr.querySelector("td")?.textContent ?? ""]),
    );
  return Object.fromEntries(rows);
}

describe("the console's Import page in Chromium", () => {
  it("imports the real mbox, ics, vcf and Slack exports with the counts the import command gives", async () => {
    const exports = writeExports();
    const page = await importPage("importer");
    for (const name of ["mail.mbox", "calendar.ics", "contacts.vcf", "slack-export.zip"]) {
      const { format, path } = exports[name]!;
      const counts = await uploadThroughPage(page, path, format);
      const cli = await commandSummary(format, path);
      expect(counts, name).toMatchObject({
        "Records read": String(cli.records),
        Items: String(cli.items),
        Created: String(cli.items),
        Skipped: String(cli.skipped),
        Errors: String(cli.errors.length),
      });
      expect(await page.locator("main").textContent()).toContain(`Done: ${cli.items} items`);
      await page.screenshot({ path: `${SHOTS}/import-${format}.png`, fullPage: true });
    }
    // The list of the user's imports shows all four, done.
    const listed = await page.locator("section[aria-labelledby='recent-imports-heading'] tbody tr").count();
    expect(listed).toBe(4);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("shows a Slack export that is a zip bomb as failed, with the entry and the limit", async () => {
    const exports = writeExports();
    const page = await importPage("bomber");
    const counts = await uploadThroughPage(page, exports["bomb.zip"]!.path, "slack");
    expect(counts).toMatchObject({ Items: "0", Created: "0" });
    expect(await page.getByRole("alert").textContent()).toMatch(
      /Failed: nothing in the file could be imported: users\.json inflates to more than 16 MB/,
    );
    await page.screenshot({ path: `${SHOTS}/import-failed.png`, fullPage: true });
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
