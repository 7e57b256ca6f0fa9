/**
 * A real browser for the console's tests: Debian's Chromium (`apt-get install chromium`, which .ci/run
 * does) driven by playwright-core, headless, in a fresh profile, with the background traffic a machine
 * without internet access cannot serve turned off.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(`${tmpdir()}/um-chromium-`);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
