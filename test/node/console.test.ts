/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against
 * `npm run dev -- --fake-llm --demo`, as a new user meets it: the printed sign-in link, ada's memory, a
 * citation followed to its item, a version's diff, a dismissal, a search, a hostile item title, and the
 * Content-Security-Policy. Every page is kept as a screenshot under bench/results/console/.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/dev-secret";
import { signDevToken, signInLink as signInLinkFor } from "../../scripts/lib/token";
import { endUserIdOf } from "../../src/agent/end-user";
import { personId } from "../../src/domain/people/model";
import { type Browser, launchBrowser } from "../support/node/browser";
import { type DevCommand, fakeLlmControl, startDevCommand } from "../support/node/dev-command";

const SECRET = "console-test-secret-that-is-long-enough-0123456789";
const SHOTS = `${ROOT}bench/results/console`;
const HOSTILE_TITLE = "<img src=x onerror=alert(1)>";
/** A memory is generated on first read by the fake LLM; a loaded machine needs its time. */
const MEMORY_READY_MS = 90_000;
/** Prices for the fake LLM's models (USD per million tokens), so /usage has a cost to chart. */
const MODEL_PRICES = JSON.stringify(
  Object.fromEntries(
    ["anthropic:fake-generator", "fake-generator", "openai:fake-judge", "fake-judge"].map((m) => [
      m,
      { input: 3, output: 15 },
    ]),
  ),
);
/** A User-Agent whose product (the audit's client) is markup. */
const HOSTILE_CLIENT = "<img/src=x/onerror=alert(5)>";

let dev: DevCommand;
let browser: Browser;
let signInLink: string;
/** Dialogs (alert, confirm) any page opened unasked; none is expected. */
const dialogs: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // One attempt a run, so a memory whose generation fails shows as failing at once (the default retries
  // with backoff for minutes); no minimum interval between runs, so a refresh runs at once.
  dev = await startDevCommand(
    [
      "--fake-llm",
      "--demo",
      "--var",
      "MAX_RUN_ATTEMPTS=1",
      "--var",
      "MIN_REFRESH_INTERVAL_MINUTES=0",
      // Ingest waits to notify, as in production (--fake-llm makes it 0): the demo's own ingest starts no run,
      // so chloe's first read finds no memory and the page shows it being generated.
      "--var",
      "INGEST_DEBOUNCE_SECONDS=300",
      "--var",
      `MODEL_PRICES=${MODEL_PRICES}`,
      // The fake LLM's embeddings: search offers and answers every mode.
      "--var",
      "EMBEDDING_MODEL=openai:fake-embedding",
    ],
    SECRET,
  );
  const deadline = Date.now() + 150_000;
  while (!dev.output().includes("demo workspace loaded")) {
    if (Date.now() > deadline) throw new Error(`the demo workspace did not load:\n${dev.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  signInLink = /(http:\/\/127\.0\.0\.1:\d+\/console\/#code=\S+)/.exec(dev.output())?.[1] ?? "";
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
}, 60_000);

/** A new tab (its own sessionStorage) that opened a sign-in link (a new one for ada) and shows the console. */
async function signedIn(link?: string): Promise<Page> {
  const page = await openTab();
  await page.goto(link ?? (await linkFor("ada")));
  await page.waitForURL(/\/console\/$/);
  return page;
}

/** A new tab, recording any dialog it opens and any error its scripts throw. */
async function openTab(): Promise<Page> {
  const page = await browser.context.newPage();
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => pageErrors.push(error.message));
  // A loaded machine (the dev server embedding the demo workspace beside other suites) can take seconds.
  page.setDefaultNavigationTimeout(60_000);
  return page;
}

/** A sign-in link (a one-time code) for `user`, as `npm run -s token -- <user> --link` prints it. */
const linkFor = (user: string, scopes?: readonly string[]) => signInLinkFor(dev.url, SECRET, user, scopes);
/** Playwright's retrying assertions belong to its own test runner: here, vitest's poll with a patient timeout. */
const poll = <T>(read: () => Promise<T>, message?: string) =>
  expect.poll(read, { timeout: 20_000, interval: 100, ...(message ? { message } : {}) });
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
const api = (path: string, init: RequestInit = {}, user = "ada") =>
  fetch(`${dev.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${signDevToken(SECRET, user)}`,
      "content-type": "application/json",
      ...init.headers,
    },
  });

describe("the console in Chromium", () => {
  it("signs in through the printed link: its one-time code becomes a 12-hour token in sessionStorage, and is spent", async () => {
    expect(signInLink).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/#code=[A-Za-z0-9_-]{43}$/);
    const page = await signedIn(signInLink);
    expect(page.url()).toBe(`${dev.url}/console/`);
    const token = await page.evaluate<string | null>('sessionStorage.getItem("unified-memory.token")');
    const claims = JSON.parse(Buffer.from(token?.split(".")[1] ?? "", "base64url").toString()) as {
      sub: string;
      exp: number;
    };
    expect(claims.sub).toBe("ada");
    expect(claims.exp * 1000 - Date.now()).toBeLessThanOrEqual(12 * 3600 * 1000);
    expect(await page.evaluate<number>("localStorage.length")).toBe(0);
    expect(await page.evaluate<string>("document.cookie")).toBe("");
    await poll(() => page.locator("header").textContent()).toContain("Signed in as ada");

    // The code in the link (and in the browser's history) is spent: the API refuses it, and another tab that
    // opens the link is sent to sign in, told why, with no token.
    const code = signInLink.split("#code=")[1];
    const again = await fetch(`${dev.url}/auth/exchange`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    expect(again.status).toBe(410);
    const reopened = await openTab();
    await reopened.goto(signInLink);
    await reopened.waitForURL(/\/console\/sign-in\?next=.*reason=link/);
    await poll(() => reopened.locator("main").textContent()).toContain("used already or has expired");
    expect(reopened.url()).not.toContain(code);
    expect(
      await reopened.evaluate<string | null>('sessionStorage.getItem("unified-memory.token")'),
    ).toBeNull();
    await reopened.close();

    // Without a token, a page sends the visitor to sign in.
    const stranger = await browser.context.newPage();
    await stranger.goto(`${dev.url}/console/runs`);
    await stranger.waitForURL(/\/console\/sign-in\?next=/);
    await stranger.getByLabel("Bearer token (a JWT)").waitFor();
    // It says how to get a token, the commands set as code (no literal backticks shown as text).
    const intro = stranger.locator("main p").first();
    expect(await intro.textContent()).not.toContain("`");
    expect(await stranger.locator("main code").allTextContents()).toEqual(
      expect.arrayContaining(["npm run -s token -- <user>"]),
    );
    await shot(stranger, "sign-in");
    await stranger.close();
    await page.close();
  });

  it("offers only what a read-only token may do: no dismissal, no admin pages", async () => {
    const page = await signedIn(await linkFor("ben", ["memory:read"]));
    await page.locator(".statement").first().waitFor({ timeout: MEMORY_READY_MS });
    expect(await page.getByRole("button", { name: /^Dismiss/ }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Members" }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Audit", exact: true }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Usage", exact: true }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "My activity" }).count()).toBe(1);
    expect(await page.getByRole("link", { name: "Runs" }).count()).toBeGreaterThan(0);
    await page.close();
  }, 120_000);

  it("shows ada's memory by section, and a citation leads to the cited item's page", async () => {
    const page = await signedIn();
    await page.locator(".statement").first().waitFor({ timeout: MEMORY_READY_MS });
    await poll(() => page.locator("h1").textContent()).toBe("Your memory");
    expect(await page.locator(".memory-section h2").count()).toBeGreaterThan(1);
    await poll(() => page.locator(".statement-meta").first().textContent()).toContain("Since");
    await shot(page, "memory");

    const citation = page.locator(".statement .citations a").first();
    const title = (await citation.textContent()) ?? "";
    const href = (await citation.getAttribute("href")) ?? "";
    const id = new URL(href, dev.url).searchParams.get("id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await citation.click();
    await page.waitForURL(`**/console/item?id=${id}`);
    await poll(() => page.locator("h1").textContent()).toBe(title);
    await poll(() => page.locator(".facts").textContent()).toContain("Author");
    expect(((await page.locator(".item-body").textContent()) ?? "").length).toBeGreaterThan(0);
    await shot(page, "item");
    await page.close();
  }, 120_000);

  it("shows a memory being generated with its progress, then the memory", async () => {
    const page = await signedIn(await linkFor("chloe"));
    await page.locator(".generating progress").waitFor({ timeout: 20_000 });
    await shot(page, "memory-generating");
    await page.locator(".statement").first().waitFor({ timeout: MEMORY_READY_MS });
    await poll(() => page.locator(".generating").count()).toBe(0);
    await page.close();
  }, 120_000);

  it("says when there is nothing to remember, and when generation is failing and why", async () => {
    const newcomer = await signedIn(await linkFor("console-newcomer"));
    await poll(() => newcomer.locator(".memory-status").textContent()).toContain("Nothing to remember yet");
    await newcomer.close();

    const user = "console-failing";
    await fakeLlmControl(dev.fakeLlmUrl!, "faults", {
      match: await endUserIdOf(user),
      fault: { kind: "server_error", status: 500 },
      times: 50,
    });
    const note = {
      source: "notes",
      externalId: "failing-1",
      kind: "note",
      body: "Anything at all",
      occurredAt: "2026-11-30T10:00:00Z",
    };
    expect(
      (await api("/items", { method: "POST", body: JSON.stringify({ items: [note] }) }, user)).status,
    ).toBe(200);
    const page = await signedIn(await linkFor(user));
    const failing = page.locator(".memory-status .notice-error");
    await failing.waitFor({ timeout: MEMORY_READY_MS });
    await poll(() => failing.textContent()).toContain("Memory generation is failing");
    await poll(() => failing.textContent()).toContain("generation_failing");
    // The reason in words, and when the agent tries again (or that it will not by itself) and what to do.
    await poll(() => failing.textContent()).toMatch(
      /Attempt \d+ to generate this memory failed: .*fake-llm fault/,
    );
    await poll(() => failing.textContent()).toMatch(
      /Next try: .+ Meanwhile you can add material|No try is scheduled: adding material/,
    );
    await shot(page, "memory-failing");
    await page.goto(`${dev.url}/console/runs`);
    await poll(() => page.locator("table.runs tbody").textContent()).toContain("failed");
    await page.close();
  }, 120_000);

  it("refreshes a memory and follows the run until it ends", async () => {
    const page = await signedIn(await linkFor("eli"));
    await page.locator(".statement").first().waitFor({ timeout: MEMORY_READY_MS });
    const runsBefore = ((await (await api("/memory/runs", {}, "eli")).json()) as { runs: unknown[] }).runs
      .length;
    await page.getByRole("button", { name: "Refresh" }).click();
    await poll(() => page.locator(".memory-status").textContent()).toMatch(
      /The refresh (succeeded|rejected)/,
    );
    await page.locator(".statement").first().waitFor();
    const { runs } = (await (await api("/memory/runs", {}, "eli")).json()) as {
      runs: { trigger: string; status: string }[];
    };
    expect(runs.length).toBe(runsBefore + 1);
    expect(runs[0]).toMatchObject({ trigger: "manual" });
    await page.close();
  }, 120_000);

  it("opens a version's diff from the timeline", async () => {
    const page = await signedIn();
    await page.locator(".statement").first().waitFor({ timeout: MEMORY_READY_MS });
    await page.getByRole("link", { name: "Versions" }).first().click();
    await page.waitForURL("**/console/versions");
    const changes = page.locator(".timeline a").first();
    await changes.click();
    await page.waitForURL(/\/console\/versions\?version=/);
    await poll(() => page.locator("#diff-title").textContent()).toContain("Changes in version");
    await poll(() => page.locator(".diff h3").first().textContent()).toMatch(/^Added \(\d+\)$/);
    expect(await page.locator(".diff .statement").count()).toBeGreaterThan(0);
    await shot(page, "versions-diff");

    // The memory as of a date: now (in the browser's time zone, which is this machine's).
    const now = new Date(Date.now() + 60_000);
    const local = new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel("Date and time").fill(local);
    await page.getByRole("button", { name: "Show" }).click();
    await poll(() => page.locator("#as-of-title + form + div").textContent()).toContain("still current");
    expect(await page.locator("#as-of-title + form + div .statement").count()).toBeGreaterThan(0);
    await page.close();
  }, 120_000);

  it("dismisses a statement after a confirmation with a reason, and it is gone from the memory", async () => {
    const page = await signedIn();
    const first = page.locator(".statement").first();
    await first.waitFor({ timeout: MEMORY_READY_MS });
    const id = (await first.getAttribute("data-statement-id")) ?? "";
    const text = (await first.locator(".statement-text").textContent()) ?? "";
    await first.getByRole("button", { name: /^Dismiss/ }).click();
    const dialog = page.getByRole("dialog");
    await poll(() => dialog.textContent()).toContain(text);
    await dialog.getByLabel("Why is it wrong? (optional)").fill("This is out of date");
    await shot(page, "dismiss-confirmation");
    await dialog.getByRole("button", { name: "Dismiss statement" }).click();
    await poll(() => page.locator(`[data-statement-id="${id}"]`).count()).toBe(0);
    await poll(() => page.locator(".memory-status").textContent()).toContain("Dismissed");

    const served = (await (await api("/memory?format=json")).json()) as { statements: { id: string }[] };
    expect(served.statements.map((s) => s.id)).not.toContain(id);
    const { dismissals } = (await (await api("/memory/dismissals")).json()) as {
      dismissals: { statementId: string; reason: string }[];
    };
    expect(dismissals).toContainEqual(
      expect.objectContaining({ statementId: id, reason: "This is out of date" }),
    );
    await page.close();
  }, 120_000);

  it("searches from the header's search landmark and lists hits with snippets", async () => {
    const page = await signedIn();
    const search = page.getByRole("search", { name: "Search items" });
    await search.getByRole("searchbox").fill("Kestrel");
    await search.getByRole("searchbox").press("Enter");
    await page.waitForURL("**/console/search?q=Kestrel");
    await page.locator(".hit").first().waitFor();
    expect(await page.locator(".hit").count()).toBeGreaterThan(1);
    await poll(() => page.locator(".hit .snippet").first().textContent()).toMatch(/kestrel/i);
    // The modes the API's contract offers, after the service's default (which sends no mode).
    expect(
      await page.locator("#filter-mode option").evaluateAll((os) => os.map((o) => o.textContent)),
    ).toEqual(["default", "hybrid", "keyword", "semantic"]);
    await shot(page, "search");
    await page.getByLabel("Mode").selectOption("semantic");
    await page.getByRole("button", { name: "Search", exact: true }).last().click();
    await page.waitForURL(/mode=semantic/);
    await page.locator(".hit").first().waitFor();
    await page.getByLabel("Mode").selectOption("default");

    await page.getByLabel("email").check();
    await page.getByRole("button", { name: "Search", exact: true }).last().click();
    await page.waitForURL(/kind=email/);
    await page.locator(".hit").first().waitFor();
    for (const kind of await page.locator(".hit .muted").allTextContents()) expect(kind).toMatch(/^email ·/);
    await page.close();
  });

  it("lists ada's people, opens one with their identifiers and evidence, and shows the suggestions queue", async () => {
    const page = await signedIn();
    await page.goto(`${dev.url}/console/people`);
    await page.locator(".hit").first().waitFor();
    expect(await page.locator(".hit").count()).toBeGreaterThan(1);
    await page.locator("#suggestions-title").waitFor();
    await shot(page, "people");
    await page.locator(".hit a").first().click();
    await page.waitForURL(/\/console\/people\?id=p_/);
    await page.getByRole("heading", { name: "Identifiers" }).waitFor();
    expect(await page.locator("tbody tr").count()).toBeGreaterThan(0);
    await poll(() => page.locator(".notice-error").count(), "person").toBe(0);
    await shot(page, "person");
    await page.close();
  });

  it("accepts a suggestion, rejects another, splits an identifier off, and follows a saved id to the person it names now", async () => {
    // Two people ada's demo never met, each seen as an address and as a chat name that no record ties
    // (the same full name, no organisation agreeing: score 9, a suggestion). Grace's card ties her address
    // to her number without a name, so her suggestion pairs her address and her chat name.
    const grace = {
      email: "email:grace@navy.example",
      chat: "handle:chat/grace hopper",
      phone: "phone:+12025550143",
    };
    const margaret = { email: "email:margaret@apollo.example", chat: "handle:chat/margaret hamilton" };
    const at = "2026-11-20T09:00:00Z";
    const ingest = await api("/items", {
      method: "POST",
      body: JSON.stringify({
        items: [
          {
            source: "gmail",
            externalId: "console-people-grace-mail",
            kind: "email",
            title: "Compiler review",
            author: "Grace Hopper <grace@navy.example>",
            body: "Notes from the compiler review.",
            occurredAt: at,
          },
          {
            source: "contacts",
            externalId: "console-people-grace-card",
            kind: "contact",
            body: "",
            people: [
              {
                role: "contact",
                email: "grace@navy.example",
                handles: [{ kind: "phone", value: "+1 202 555 0143" }],
              },
            ],
            occurredAt: at,
          },
          {
            source: "chat",
            externalId: "console-people-grace-chat",
            kind: "message",
            author: "Grace Hopper",
            body: "The nanosecond wire is on my desk.",
            occurredAt: at,
          },
          {
            source: "gmail",
            externalId: "console-people-margaret-mail",
            kind: "email",
            title: "Flight software",
            author: "Margaret Hamilton <margaret@apollo.example>",
            body: "The priority display works.",
            occurredAt: at,
          },
          {
            source: "chat",
            externalId: "console-people-margaret-chat",
            kind: "message",
            author: "Margaret Hamilton",
            body: "Restart protection is in.",
            occurredAt: at,
          },
        ],
      }),
    });
    expect(ingest.status).toBe(200);

    type Side = { identifier: string; person: { id: string; name: string } | null };
    const suggestions = async () =>
      ((await (await api("/people/suggestions")).json()) as { suggestions: { a: Side; b: Side }[] })
        .suggestions;
    const pair = (s: { a: Side; b: Side }) => [s.a.identifier, s.b.identifier].sort();
    const before = await suggestions();
    expect(before.map(pair)).toEqual(
      expect.arrayContaining([
        [grace.email, grace.chat],
        [margaret.email, margaret.chat],
      ]),
    );
    // The ids a client saved before any correction: each side's person then.
    const savedIds = new Map(before.flatMap((s) => [s.a, s.b]).map((s) => [s.identifier, s.person?.id]));
    const graceId = savedIds.get(grace.email) ?? "";
    const chatId = savedIds.get(grace.chat) ?? "";
    expect(graceId).toBe(personId(grace.email));
    expect(chatId).toBe(personId(grace.chat));

    type Detail = { id: string; requestedId: string; identifiers: { key: string; link: string }[] };
    const person = async (id: string) => (await (await api(`/people/${id}`)).json()) as Detail;
    const keysOf = (p: Detail) => p.identifiers.map((i) => i.key).sort();
    const linkOf = (p: Detail, key: string) => p.identifiers.find((i) => i.key === key)?.link;

    // Accept: one person, her chat name tied in by the member's word.
    const page = await signedIn();
    await page.goto(`${dev.url}/console/people`);
    // The queue, and what an accept or a reject did, said in it beside the buttons.
    const queue = page.getByRole("region", { name: "Suggestions" });
    const queued = (text: string) => queue.locator(".suggestions li", { hasText: text });
    await poll(() => queued("grace@navy.example").count()).toBe(1);
    await poll(() => queued("margaret@apollo.example").count()).toBe(1);
    await shot(page, "people-suggestions");
    await queued("grace@navy.example").getByRole("button", { name: "Same person" }).click();
    await poll(() => queue.locator(".notice").allTextContents()).toEqual(["Merged."]);
    await poll(() => queued("grace@navy.example").count()).toBe(0);
    expect(await queued("margaret@apollo.example").count()).toBe(1);
    const merged = await person(graceId);
    expect(merged.id).toBe(graceId);
    expect(keysOf(merged)).toEqual([grace.email, grace.chat, grace.phone]);
    expect(linkOf(merged, grace.chat)).toBe("confirmed");
    expect((await person(chatId)).id).toBe(graceId);
    expect((await suggestions()).map(pair)).not.toContainEqual([grace.email, grace.chat]);

    await page.goto(`${dev.url}/console/people?id=${graceId}`);
    const rows = page.locator("main tbody tr");
    const row = (key: string) => rows.filter({ has: page.getByRole("cell", { name: key, exact: true }) });
    await poll(() => rows.count()).toBe(3);
    expect(await row(grace.chat).locator("td").nth(2).textContent()).toBe("confirmed");
    expect(await page.locator("main .notice").count()).toBe(0);
    await shot(page, "person-merged");

    // Reject: gone from the queue, after a reload too, and from the API's; the two stay apart.
    await page.goto(`${dev.url}/console/people`);
    await queued("margaret@apollo.example").getByRole("button", { name: "Different people" }).click();
    await poll(() => queue.locator(".notice").allTextContents()).toEqual(["Kept apart."]);
    await poll(() => queued("margaret@apollo.example").count()).toBe(0);
    await page.reload();
    await page.locator("#suggestions-title").waitFor();
    expect(await queued("margaret@apollo.example").count()).toBe(0);
    expect((await suggestions()).map(pair)).not.toContainEqual([margaret.email, margaret.chat]);
    expect(keysOf(await person(savedIds.get(margaret.email) ?? ""))).toEqual([margaret.email]);
    expect(keysOf(await person(savedIds.get(margaret.chat) ?? ""))).toEqual([margaret.chat]);
    await shot(page, "people-rejected");

    // Split: her number leaves her, a person of its own; her address and chat name stay one.
    await page.goto(`${dev.url}/console/people?id=${graceId}`);
    await poll(() => rows.count()).toBe(3);
    await page.getByRole("button", { name: `Split ${grace.phone} off` }).click();
    await poll(() => rows.count()).toBe(2);
    expect(await row(grace.phone).count()).toBe(0);
    expect(keysOf(await person(graceId))).toEqual([grace.email, grace.chat]);
    const phone = await person(personId(grace.phone));
    expect(phone.id).toBe(personId(grace.phone));
    expect(keysOf(phone)).toEqual([grace.phone]);
    await shot(page, "person-split");
    await page.goto(`${dev.url}/console/people?id=${personId(grace.phone)}`);
    await poll(() => rows.count()).toBe(1);
    expect(await row(grace.phone).locator("td").nth(2).textContent()).toBe("self");
    expect(await page.locator("main .notice").count()).toBe(0);

    // The id her chat name had before the merge names the person holding it now, and the page says so.
    await page.goto(`${dev.url}/console/people?id=${chatId}`);
    await poll(() => rows.count()).toBe(2);
    expect(await page.locator("h1").textContent()).toBe("Grace Hopper");
    expect(await row(grace.email).count()).toBe(1);
    expect(await row(grace.chat).count()).toBe(1);
    expect(await page.locator("main .notice").allTextContents()).toEqual([
      "This person was merged or split since; showing who the id belongs to now.",
    ]);
    const now = await person(chatId);
    expect(now).toMatchObject({ id: graceId, requestedId: chatId });
    await shot(page, "person-moved");

    // Splitting off the identifier her id comes from keeps the rest on the page, under the id it has now.
    await page.goto(`${dev.url}/console/people?id=${graceId}`);
    await poll(() => rows.count()).toBe(2);
    await page.getByRole("button", { name: `Split ${grace.email} off` }).click();
    await page.waitForURL(new RegExp(`id=${personId(grace.chat)}$`));
    await poll(() => rows.count()).toBe(1);
    expect(await row(grace.chat).count()).toBe(1);
    expect(keysOf(await person(graceId))).toEqual([grace.email]);
    expect(pageErrors).toEqual([]);
    expect(dialogs).toEqual([]);
    await page.close();
  }, 120_000);

  it("renders an item titled with markup as text: no image, no dialog; only http(s) body links are clickable", async () => {
    const ingest = await api("/items", {
      method: "POST",
      body: JSON.stringify({
        items: [
          {
            source: "gmail",
            externalId: "console-hostile",
            kind: "email",
            title: HOSTILE_TITLE,
            author: '<b onmouseover="alert(2)">Mallory</b>',
            body: "See https://example.com/report?x=1 and javascript:alert(3) and <script>alert(4)</script>.",
            occurredAt: "2026-11-30T09:00:00Z",
          },
        ],
      }),
    });
    expect(ingest.status).toBe(200);
    const [{ id }] = ((await ingest.json()) as { items: { id: string }[] }).items as [{ id: string }];

    const page = await signedIn();
    await page.goto(`${dev.url}/console/item?id=${id}`);
    await poll(() => page.locator("h1").textContent()).toBe(HOSTILE_TITLE);
    await poll(() => page.locator(".facts").textContent()).toContain('<b onmouseover="alert(2)">Mallory</b>');
    expect(await page.locator("main img, main script, main b").count()).toBe(0);
    const links = page.locator(".item-body a");
    await poll(() => links.count()).toBe(1);
    expect(await links.getAttribute("href")).toBe("https://example.com/report?x=1");
    expect(await links.getAttribute("rel")).toBe("noopener noreferrer");
    await poll(() => page.locator(".item-body").textContent()).toContain(
      "javascript:alert(3) and <script>alert(4)</script>",
    );
    await shot(page, "item-hostile-title");

    await page.goto(`${dev.url}/console/search?q=onerror`);
    await poll(() => page.locator(".hit a").first().textContent()).toBe(HOSTILE_TITLE);
    expect(await page.locator("main img").count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it("lets an admin add a member and create a team with them, which then shows among the user's teams", async () => {
    const page = await signedIn();
    await page.goto(`${dev.url}/console/members`);
    await page.locator("tbody tr").first().waitFor();
    await page.getByLabel("User id").fill("console-newhire");
    await page.getByRole("button", { name: "Add member" }).click();
    await poll(() => page.locator("tbody").textContent()).toContain("console-newhire");

    await page.goto(`${dev.url}/console/admin-teams`);
    await page.locator("tbody tr").first().waitFor();
    await page.getByLabel("Team id").fill("console-crew");
    await page.getByLabel("Name").fill("Console crew");
    await page.getByLabel("Members (user ids, comma-separated)").fill("ada, console-newhire");
    await page.getByRole("button", { name: "Save team" }).click();
    await poll(() => page.locator("tbody").textContent()).toContain("Console crew");
    await poll(() => page.locator("tbody").textContent()).toContain("ada, console-newhire");

    await page.goto(`${dev.url}/console/teams`);
    await poll(() => page.locator(".cards").textContent()).toContain("Console crew");
    expect(await page.locator('.cards a[href="/console/?team=console-crew"]').count()).toBe(1);
    await page.close();
  });

  it("shows an admin the audit trail with filters, the usage per subject with a cost chart, and a user their activity", async () => {
    // A read from a client whose name is markup: the audit shows it as text.
    expect((await api("/memory", { headers: { "user-agent": HOSTILE_CLIENT } })).status).toBeLessThan(300);
    const page = await signedIn();
    await page.goto(`${dev.url}/console/audit`);
    // Events reach the table through the audit queue (batches of up to 2 s): read until they have.
    await poll(async () => {
      await page.reload();
      await page.locator("table.audit tbody tr").first().waitFor();
      return page.locator("table.audit tbody").textContent();
    }).toContain(HOSTILE_CLIENT);
    const reads = page.locator("tr.audit-event", { hasText: "memory.read" });
    expect(
      await reads.filter({ has: page.locator(".audit-actor", { hasText: /^ada$/ }) }).count(),
    ).toBeGreaterThan(0);
    expect(await page.locator("main img, main b").count()).toBe(0);
    await shot(page, "audit");

    await page.getByLabel("Action").selectOption("item.read");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/action=item\.read/);
    await page.locator("tr.audit-event").first().waitFor();
    expect(new Set(await page.locator(".audit-action").allTextContents())).toEqual(new Set(["item.read"]));
    expect(await page.locator('tr.audit-event a[href^="/console/item?id="]').count()).toBeGreaterThan(0);

    await page.goto(`${dev.url}/console/usage`);
    await page.locator("tr.usage-subject").first().waitFor();
    expect(await page.locator("tr.usage-subject th").allTextContents()).toContain("ada");
    expect(await page.locator("main svg.chart rect.bar").count()).toBeGreaterThan(0);
    await poll(() => page.locator("table.usage-days tbody").textContent()).toMatch(/\$\d/);
    await shot(page, "usage");

    await page.goto(`${dev.url}/console/activity`);
    await page.locator("tr.audit-event").first().waitFor();
    await poll(() => page.locator(".audit-action").allTextContents()).toContain("memory.read");
    expect(await page.locator(".audit-actor").allTextContents()).toContain("ada");
    await shot(page, "activity");
    expect(dialogs).toEqual([]);
    await page.close();
  }, 120_000);

  it("serves every console file with a strict Content-Security-Policy, which the browser enforces", async () => {
    for (const path of [
      "/console",
      "/console/",
      "/console/item",
      "/console/js/main.js",
      "/console/console.css",
    ]) {
      const response = await fetch(`${dev.url}${path}`, { redirect: "manual" });
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
    const page = await signedIn();
    // Browser code as a string: this file is type-checked without the DOM's types.
    const ran = await page.evaluate<string>(`(() => {
      const script = document.createElement("script");
      script.textContent = "document.body.dataset.inline = 'ran'";
      document.body.append(script);
      return document.body.dataset.inline ?? "blocked";
    })()`);
    expect(ran).toBe("blocked");
    await page.close();
  });

  it("renders every page without an error, at 360 px too, with a visible focus from the keyboard", async () => {
    const page = await signedIn();
    await page.locator(".statement").first().waitFor({ timeout: MEMORY_READY_MS });
    const pages: (readonly [string, string, string])[] = [
      ["runs", "/console/runs", "table.runs tbody tr"],
      ["teams", "/console/teams", ".card"],
      ["people", "/console/people", ".hit"],
      ["team-memory", "/console/?team=payments", ".statement"],
      ["members", "/console/members", "tbody tr"],
      ["admin-teams", "/console/admin-teams", "tbody tr"],
    ];
    const loadMs: Record<string, number> = {};
    for (const [name, path, ready] of [["memory", "/console/", ".statement"] as const, ...pages]) {
      const startedAt = Date.now();
      await page.goto(`${dev.url}${path}`);
      await page.locator(ready).first().waitFor({ timeout: MEMORY_READY_MS });
      loadMs[name] = Date.now() - startedAt;
      await poll(() => page.locator(".notice-error").count(), name).toBe(0);
      if (name !== "memory") await shot(page, name);
    }
    // What a page takes from navigation to its content on the dev server (a record, kept with the screenshots).
    writeFileSync(
      `${SHOTS}/load-times.json`,
      `${JSON.stringify({ at: new Date().toISOString(), loadMs }, null, 2)}\n`,
    );
    await poll(() => page.locator("tbody").textContent()).toContain("ben");

    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${dev.url}/console/`);
    await page.locator(".statement").first().waitFor();
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await shot(page, "memory-360px");

    await page.keyboard.press("Tab");
    await poll(() => page.locator(":focus").textContent()).toBe("Skip to content");
    await page.keyboard.press("Tab");
    const outline = await page.evaluate<string>("getComputedStyle(document.activeElement).outlineStyle");
    expect(outline).not.toBe("none");
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 120_000);
});

/** Item ids of `user` matching a search (the API, not the console). */
async function itemIdsFor(user: string, q: string): Promise<{ id: string; title: string | null }[]> {
  const found = (await (await api(`/items?q=${encodeURIComponent(q)}&limit=20`, {}, user)).json()) as {
    items: { id: string; title: string | null }[];
  };
  return found.items;
}

/** What overflows sideways on the current page: the page itself, a table's scroll region, a cut-off cell. */
const OVERFLOW = `(() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > innerWidth) out.push("page " + doc.scrollWidth + " > " + innerWidth);
  for (const region of document.querySelectorAll(".table-scroll"))
    if (region.scrollWidth > region.clientWidth + 1) out.push("table " + region.scrollWidth + " > " + region.clientWidth);
  for (const cell of document.querySelectorAll("main td, main tbody th"))
    if (cell.scrollWidth > cell.clientWidth + 1) out.push("cell " + JSON.stringify(cell.textContent.slice(0, 40)));
  for (const stamp of document.querySelectorAll("main td time"))
    if (stamp.getClientRects().length > 1) out.push("date wraps " + JSON.stringify(stamp.textContent));
  return out;
})()`;

describe("the console closes the loop", () => {
  it("lists a dismissal, shows it dismissed in the version's history with its words, and withdraws it", async () => {
    const page = await signedIn();
    const statement = page.locator(".statement").nth(1);
    await statement.waitFor({ timeout: MEMORY_READY_MS });
    const id = (await statement.getAttribute("data-statement-id")) ?? "";
    const text = (await statement.locator(".statement-text").textContent()) ?? "";
    // The version it is dismissed from (a run the test's ingests start may write a newer one meanwhile).
    const { version } = (await (await api("/memory?format=json")).json()) as { version: string };
    // The dismiss button looks like what it does: not like Cancel.
    const dismiss = statement.getByRole("button", { name: /^Dismiss/ });
    expect(await dismiss.getAttribute("class")).toContain("danger");
    await dismiss.click();
    await page.getByRole("dialog").getByLabel("Why is it wrong? (optional)").fill("Wrong person");
    await page.getByRole("dialog").getByRole("button", { name: "Dismiss statement" }).click();
    const listed = page.locator(".dismissal", { hasText: text });
    await poll(() => listed.count()).toBe(1);
    expect(await listed.textContent()).toContain("why: Wrong person");

    // History: the version is badged dismissed (not redacted), and its diff shows the statement and why.
    await page.goto(`${dev.url}/console/versions`);
    const entry = page.locator(".timeline li", { has: page.locator(`a[href*="version=${version}"]`) });
    await poll(() => entry.textContent()).toMatch(/\d+ dismissed/);
    expect(await entry.textContent()).not.toContain("redacted");
    await entry.getByRole("link", { name: /^Changes in/ }).click();
    const removed = page.locator(`.diff-removed [data-statement-id="${id}"]`);
    await poll(() => removed.textContent()).toContain(text);
    expect(await removed.locator(".removal-reason").textContent()).toMatch(
      /dismissed by you.*why: Wrong person/,
    );
    await shot(page, "versions-dismissed");

    // Withdrawn from the memory page: gone from the list, and from the API's.
    await page.goto(`${dev.url}/console/`);
    await page
      .locator(".dismissal", { hasText: text })
      .getByRole("button", { name: /^Withdraw/ })
      .click();
    await poll(() => page.locator(".dismissal", { hasText: text }).count()).toBe(0);
    await poll(() => page.locator(".dismissals-section").textContent()).toContain("Withdrawn");
    const { dismissals } = (await (await api("/memory/dismissals")).json()) as {
      dismissals: { statementId: string }[];
    };
    expect(dismissals.map((d) => d.statementId)).not.toContain(id);
    await page.close();
  }, 180_000);

  it("adds a note, deletes it after a confirmation, and leaves an item shared with the user", async () => {
    const page = await signedIn();
    await page.locator(".statement").first().waitFor({ timeout: MEMORY_READY_MS });
    await page.getByText("Add a note", { exact: true }).click();
    await page.getByLabel("Title (optional)").fill("Console note about Quillfeather");
    await page
      .getByLabel("Note", { exact: true })
      .fill("Quillfeather is the codename of the new billing export.");
    await page.getByRole("button", { name: "Add note" }).click();
    const added = page.locator(".add-note-status a");
    await poll(() => added.textContent()).toBe("Console note about Quillfeather");
    const [note] = await itemIdsFor("ada", "Quillfeather");
    expect(note?.title).toBe("Console note about Quillfeather");

    await added.click();
    await poll(() => page.locator("h1").textContent()).toBe("Console note about Quillfeather");
    const remove = page.getByRole("button", { name: "Delete item…" });
    expect(await remove.getAttribute("class")).toContain("danger");
    await remove.click();
    const dialog = page.getByRole("dialog");
    await poll(() => dialog.textContent()).toContain("Delete “Console note about Quillfeather”");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await api(`/items/${note!.id}`)).status).toBe(200);
    await remove.click();
    await dialog.getByRole("button", { name: "Delete item" }).click();
    await poll(() => page.locator("h1").textContent()).toBe("Item deleted");
    expect((await api(`/items/${note!.id}`)).status).toBe(404);

    // ben shares a note with ada by name; ada leaves it, and ben still has it.
    const shared = await api(
      "/items",
      {
        method: "POST",
        body: JSON.stringify({
          items: [
            {
              source: "notes",
              externalId: "console-leave-me",
              kind: "note",
              title: "Ben's note for Ada",
              body: "Shared with Ada by name.",
              occurredAt: "2026-12-01T09:00:00Z",
              sharedWith: ["ada"],
            },
          ],
        }),
      },
      "ben",
    );
    const [{ id: sharedId }] = ((await shared.json()) as { items: { id: string }[] }).items as [
      { id: string },
    ];
    await page.goto(`${dev.url}/console/item?id=${sharedId}`);
    await page.getByRole("button", { name: "Leave share…" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Leave" }).click();
    await poll(() => page.locator("h1").textContent()).toBe("Share left");
    expect((await api(`/items/${sharedId}`)).status).toBe(404);
    expect((await api(`/items/${sharedId}`, {}, "ben")).status).toBe(200);
    expect(dialogs).toEqual([]);
    await page.close();
  }, 180_000);

  it("renders an item's mentions as links or names, never as markup, with its links and the statements citing it", async () => {
    const [runbook] = (await itemIdsFor("ada", "Kestrel cut-over runbook")).filter(
      (i) => i.title === "Kestrel cut-over runbook",
    );
    expect(runbook).toBeDefined();
    const page = await signedIn();
    await page.locator(".statement").first().waitFor({ timeout: MEMORY_READY_MS });
    await page.goto(`${dev.url}/console/item?id=${runbook!.id}`);
    const body = page.locator(".item-body");
    await poll(() => body.textContent()).toContain("Keep dual-write on for 14 days");
    expect(await body.textContent()).not.toContain("@[");
    // The pull request it mentions is ben's, whom ada cannot read: the link names ada's own copy of it.
    const mention = body.locator("a.mention-link");
    expect(await mention.textContent()).toBe(
      "Dual-write ledger entries to Corvid Pay behind kestrel_dual_write",
    );
    expect(await mention.getAttribute("href")).toMatch(/^\/console\/item\?id=/);
    const linksTo = page.locator("section.links", { hasText: "Links to" });
    expect(await linksTo.textContent()).toContain("Dual-write ledger entries to Corvid Pay");
    expect(await page.locator("#cited-by").count()).toBe(1);

    // Markup in a mention or the body stays text; an unknown mention is its name, not a link.
    const ingest = await api("/items", {
      method: "POST",
      body: JSON.stringify({
        items: [
          {
            source: "notes",
            externalId: "console-mentions",
            kind: "note",
            title: "Mentions",
            body: "See @[github:northwind/ledger-api#820], @[github:<img src=x onerror=alert(6)>] and @[nowhere].",
            occurredAt: "2026-12-01T10:00:00Z",
          },
        ],
      }),
    });
    const [{ id }] = ((await ingest.json()) as { items: { id: string }[] }).items as [{ id: string }];
    await page.goto(`${dev.url}/console/item?id=${id}`);
    await poll(() => body.textContent()).toBe(
      "See Dual-write ledger entries to Corvid Pay behind kestrel_dual_write, github:<img src=x onerror=alert(6)> and notes:nowhere.",
    );
    expect(await body.locator("a").count()).toBe(1);
    expect(await page.locator("main img").count()).toBe(0);
    expect(await body.locator(".mention").allTextContents()).toEqual([
      "github:<img src=x onerror=alert(6)>",
      "notes:nowhere",
    ]);
    await shot(page, "item-mentions");
    expect(dialogs).toEqual([]);
    await page.close();
  }, 120_000);

  it("fits every page at 1,280 and 390 px, with titles and browser names", async () => {
    const page = await signedIn();
    await page.locator(".statement").first().waitFor({ timeout: MEMORY_READY_MS });
    // The generated memory is the fake model's, and says so.
    expect(await page.locator(".memory-status .badge-fake").textContent()).toBe("fake model");
    const pages: (readonly [string, string, string])[] = [
      ["memory", "/console/", ".statement"],
      ["people", "/console/people", ".hit"],
      ["teams", "/console/teams", ".cards"],
      ["import", "/console/import", "main form"],
      ["members", "/console/members", "tbody tr"],
      ["admin-teams", "/console/admin-teams", "tbody tr"],
      ["webhooks", "/console/webhooks", "main form"],
      ["audit", "/console/audit", "tr.audit-event"],
      ["activity", "/console/activity", "tr.audit-event"],
      ["runs", "/console/runs", "table.runs tbody tr"],
      ["usage", "/console/usage", "tr.usage-subject"],
      ["versions", "/console/versions", ".timeline li"],
      ["search", "/console/search?q=Kestrel", ".hit"],
    ];
    const [runbook] = (await itemIdsFor("ada", "Kestrel cut-over runbook")).filter(
      (i) => i.title === "Kestrel cut-over runbook",
    );
    pages.push(["item", `/console/item?id=${runbook!.id}`, ".item-body"]);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [name, path, ready] of pages) {
        await page.goto(`${dev.url}${path}`);
        await page.locator(ready).first().waitFor();
        expect(await page.evaluate<string[]>(OVERFLOW), `${name} at ${width} px`).toEqual([]);
        await shot(page, `${name}-${width}px`);
      }
    }
    // Items by title where the reader may see them (not 8-hex ids); clients by browser, not "Mozilla/5.0".
    await page.goto(`${dev.url}/console/activity`);
    await page.locator("tr.audit-event").first().waitFor();
    const itemLabels = await page.locator(".audit-items a").allTextContents();
    expect(itemLabels.length).toBeGreaterThan(0);
    expect(itemLabels.some((label) => !/^[0-9a-f]{8}$/.test(label))).toBe(true);
    const clients = await page.locator(".audit-client").allTextContents();
    expect(clients).toContainEqual(expect.stringMatching(/^(Headless)?Chrome\/\d+$/));
    expect(clients).not.toContain("Mozilla/5.0");
    await page.close();
  }, 180_000);

  it("offers only the search modes the server answers, and charts tokens when no model has a price", async () => {
    const page = await signedIn();
    await page.goto(`${dev.url}/console/search?q=Kestrel`);
    await page.locator(".hit").first().waitFor();
    expect(await page.locator("#filter-mode option").allTextContents()).toEqual([
      "default",
      "hybrid",
      "keyword",
      "semantic",
    ]);
    await page.close();

    // A keyword-only server (no EMBEDDING_MODEL) with no MODEL_PRICES, as `npm run dev -- --fake-llm` is.
    const plain = await startDevCommand(["--fake-llm"], SECRET);
    try {
      const health = (await (await fetch(`${plain.url}/health`)).json()) as { search: { modes: string[] } };
      expect(health.search.modes).toEqual(["keyword"]);
      const headers = {
        authorization: `Bearer ${signDevToken(SECRET, "ada")}`,
        "content-type": "application/json",
      };
      const added = await fetch(`${plain.url}/items`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          items: [
            {
              source: "notes",
              externalId: "plain-1",
              kind: "note",
              body: "Prefers async updates over meetings.",
              occurredAt: "2026-12-01T10:00:00Z",
            },
          ],
        }),
      });
      expect(added.status).toBe(200);
      expect((await fetch(`${plain.url}/memory?wait=30`, { headers })).status).toBe(200);

      const tab = await signedIn(await signInLinkFor(plain.url, SECRET, "ada"));
      await tab.goto(`${plain.url}/console/search?q=async&mode=semantic`);
      await tab.locator(".hit").first().waitFor();
      expect(await tab.locator("#filter-mode").count()).toBe(0);
      expect(await tab.locator(".notice-error").count()).toBe(0);

      await tab.goto(`${plain.url}/console/runs`);
      const chart = tab.locator(".my-usage svg.chart");
      await chart.waitFor();
      expect(await chart.getAttribute("data-metric")).toBe("tokens");
      expect(await chart.locator("rect.bar").count()).toBeGreaterThan(0);
      expect(await tab.locator(".my-usage").textContent()).toContain("tokens per day");
      expect(await tab.locator(".my-usage").textContent()).not.toContain("$0");
      await shot(tab, "runs-tokens");
      await tab.close();
    } finally {
      await plain.stop();
    }
  }, 300_000);
});

describe("the console's code", () => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(`${dir}/${entry.name}`) : [`${dir}/${entry.name}`],
    );
  const sources = files(`${ROOT}web/console`).filter((f) => /\.(js|html)$/.test(f));

  it("never turns strings into markup, never uses localStorage or cookies, and has no inline script", () => {
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|localStorage|document\.cookie/,
      );
      if (file.endsWith(".html")) expect(text, file).not.toMatch(/<script(?![^>]*\bsrc=)|\son[a-z]+=/i);
    }
  });
});
