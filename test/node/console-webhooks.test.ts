/**
 * The console's Webhooks page in a real browser (Debian's Chromium through playwright-core) against
 * `npm run dev -- --fake-llm` with local receivers allowed: an admin registers a receiver and sees its secret
 * once, sends a test event and watches its delivery arrive in the log (the receiver verifies it with the
 * standardwebhooks library), rotates the secret, disables it, and deletes it after a confirm.
 */
import type { Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInLink } from "../../scripts/lib/token";
import { type Browser, launchBrowser } from "../support/node/browser";
import { type DevCommand, startDevCommand } from "../support/node/dev-command";
import { type ReceivedDelivery, startWebhookReceiver } from "../support/node/webhook-receiver";

const SECRET = "console-webhooks-secret-that-is-long-enough-0123456789";

let dev: DevCommand;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dev = await startDevCommand(["--fake-llm", "--var", "WEBHOOKS_ALLOW_LOCAL=true"], SECRET);
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  await receiver?.close();
}, 60_000);

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 200 });

async function webhooksPage(): Promise<{ page: Page; confirms: string[]; errors: string[] }> {
  const page = await browser.context.newPage();
  const confirms: string[] = [];
  const errors: string[] = [];
  page.on("dialog", (dialog) => {
    confirms.push(dialog.message());
    void dialog.accept();
  });
  page.on("pageerror", (error) => errors.push(error.message));
  page.setDefaultNavigationTimeout(60_000);
  await page.goto(await signInLink(dev.url, SECRET, "root"));
  await page.waitForURL(/\/console\/$/);
  await page.getByRole("link", { name: "Webhooks" }).click();
  await page.waitForURL(/\/console\/webhooks$/);
  return { page, confirms, errors };
}

describe("the console's Webhooks page in Chromium", () => {
  it("registers, tests, rotates, disables and deletes an endpoint, showing each secret once and the deliveries", async () => {
    const { page, confirms, errors } = await webhooksPage();
    const hookUrl = `${receiver.url}/hooks/console`;
    await page.getByLabel("URL (https)").fill(hookUrl);
    await page.getByLabel("Description (optional)").fill("the console's receiver");
    await expect.poll(() => page.getByLabel("memory.updated").isChecked()).toBe(true);
    await page.getByRole("button", { name: "Register endpoint" }).click();
    const secretShown = page.locator("code.webhook-secret");
    await poll(() => secretShown.count()).toBe(1);
    const secret = (await secretShown.textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);
    await poll(() => page.locator("tbody").first().textContent()).toContain(hookUrl);

    await page.getByRole("button", { name: `Send a test event to ${hookUrl}` }).click();
    await poll(async () => {
      await page.getByRole("button", { name: "Refresh deliveries" }).click();
      return page.getByRole("region", { name: "Deliveries" }).textContent();
    }).toMatch(/webhook\.test\s*delivered/);
    const received = (await (await fetch(`${receiver.url}/__control/console`)).json()) as ReceivedDelivery[];
    expect(received).toHaveLength(1);
    expect(new Webhook(secret).verify(received[0]!.body, received[0]!.headers)).toMatchObject({
      type: "webhook.test",
    });
    // The list never shows the secret again.
    expect(await page.locator("table").first().textContent()).not.toContain(secret);

    await page.getByRole("button", { name: `Rotate the secret of ${hookUrl}` }).click();
    await poll(() => secretShown.textContent()).not.toBe(secret);
    expect(await secretShown.textContent()).toMatch(/^whsec_/);

    await page.getByRole("button", { name: `Disable ${hookUrl}` }).click();
    await poll(() => page.locator("tbody").first().textContent()).toContain("disabled");

    await page.getByRole("button", { name: `Delete ${hookUrl}` }).click();
    await poll(() => page.locator("tbody").first().textContent()).toContain("No endpoint yet.");
    expect(confirms).toEqual([
      expect.stringMatching(/^Rotate the signing secret/),
      expect.stringMatching(/^Delete the endpoint/),
    ]);
    expect(errors).toEqual([]);
  });
});
