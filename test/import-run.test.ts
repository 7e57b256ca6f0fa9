import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { jsonLine } from "../scripts/lib/import/report";
import { createSender, type Fetch } from "../scripts/lib/import/sender";
import { parseEmail } from "../src/import/email";
import type { ImportEvent } from "../src/import/records";
import { type ImportSummary, runImport } from "../src/import/run-import";
import { newUserId, tokenFor } from "./support/auth";
import { bytes, fixtures } from "./support/import-fixtures";
import { call, json, warmUpWorker } from "./support/items";

beforeAll(warmUpWorker);

const thread = {
  // The reply comes first: its link waits for the root and resolves when the root arrives.
  reply:
    "From: Ben <ben@example.com>\nTo: Ada <ada@example.com>\nSubject: Re: quarterly plans\nDate: Tue, 5 Mar 2024 11:00:00 +0000\nMessage-ID: <reply@example.com>\nIn-Reply-To: <root@example.com>\n\nSounds good.\n",
  root: "From: Ada <ada@example.com>\nTo: Ben <ben@example.com>\nSubject: quarterly plans\nDate: Tue, 5 Mar 2024 10:00:00 +0000\nMessage-ID: <root@example.com>\n\nShall we plan the quarter?\n",
};

async function* mailEvents(extra: ImportEvent[] = []): AsyncIterable<ImportEvent> {
  for (const [name, text] of Object.entries(fixtures.eml)) {
    yield await parseEmail(
      bytes(text),
      { file: name, position: "message" },
      { fallbackDate: "2024-01-01T00:00:00Z" },
    );
  }
  yield await parseEmail(bytes(thread.reply), { file: "thread", position: "1" });
  yield await parseEmail(bytes(thread.root), { file: "thread", position: "2" });
  yield* extra;
}

const workerFetch: Fetch = (input, init) => exports.default.fetch(input, init);

async function importAs(
  user: string,
  events: AsyncIterable<ImportEvent>,
  fetch: Fetch = workerFetch,
  wait?: (ms: number) => Promise<void>,
) {
  const sender = createSender({
    url: "http://local",
    token: await tokenFor(user),
    fetch,
    ...(wait ? { wait } : {}),
  });
  return runImport({ format: "eml", files: 7, source: "eml", events, send: sender.send, concurrency: 3 });
}

const counts = (s: ImportSummary) => ({
  records: s.records,
  items: s.items,
  created: s.created,
  updated: s.updated,
  unchanged: s.unchanged,
  skipped: s.skipped,
  errors: s.errors.length,
});

describe("an import through the worker", () => {
  it("creates every item, and a second run reports all of them unchanged", async () => {
    const user = newUserId();
    const first = await importAs(user, mailEvents());
    expect(counts(first)).toEqual({
      records: 7,
      items: 7,
      created: 7,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      errors: 0,
    });
    const second = await importAs(user, mailEvents());
    expect(counts(second)).toEqual({
      records: 7,
      items: 7,
      created: 0,
      updated: 0,
      unchanged: 7,
      skipped: 0,
      errors: 0,
    });
  });

  it("links a reply to the message it answers, even when the reply was imported first", async () => {
    const user = newUserId();
    await importAs(user, mailEvents());
    const found = await json<{ items: { id: string; externalId: string }[] }>(
      await call(user, "GET", "/items?q=quarterly%20plans"),
    );
    const reply = found.items.find((i) => i.externalId === "reply@example.com");
    const stored = await json<{ links: { direction: string; kind: string; item: { externalId: string } }[] }>(
      await call(user, "GET", `/items/${reply!.id}`),
    );
    expect(stored.links).toEqual([
      expect.objectContaining({
        direction: "outgoing",
        kind: "reply",
        item: expect.objectContaining({ externalId: "root@example.com" }),
      }),
    ]);
  });

  it("isolates an item the server refuses (422), reports it and stores the rest", async () => {
    const user = newUserId();
    const bad: ImportEvent = {
      type: "item",
      item: {
        externalId: "bad-1",
        kind: "email",
        body: "x",
        occurredAt: "2024-01-01T00:00:00Z",
        url: "ftp://not-http",
      },
      at: { file: "made-up.mbox", position: "message 9" },
    };
    const summary = await importAs(user, mailEvents([bad]));
    expect(counts(summary)).toMatchObject({ records: 8, items: 8, created: 7, errors: 1 });
    expect(summary.errors[0]).toEqual({
      file: "made-up.mbox",
      position: "message 9",
      message: "url: must be an http(s) URL",
    });
  });

  it("retries a 503 after the Retry-After it was given", async () => {
    const user = newUserId();
    const waits: number[] = [];
    let refused = 0;
    const flaky: Fetch = async (input, init) => {
      if (refused++ === 0) return new Response("busy", { status: 503, headers: { "retry-after": "2" } });
      return workerFetch(input, init);
    };
    const summary = await importAs(user, mailEvents(), flaky, async (ms) => {
      waits.push(ms);
    });
    expect(waits).toEqual([2000]);
    expect(summary.created).toBe(7);
  });

  it("skips a record whose id repeats, so a re-run stays unchanged", async () => {
    const user = newUserId();
    async function* twice() {
      yield* mailEvents();
      yield await parseEmail(bytes(thread.root.replace("Shall we", "Should we")), {
        file: "thread",
        position: "3",
      });
    }
    const summary = await importAs(user, twice());
    expect(counts(summary)).toMatchObject({ records: 8, items: 7, skipped: 1 });
    expect(summary.skippedReasons).toEqual({ "repeats an earlier record's id": 1 });
  });

  it("prints the JSON summary with the contract's keys", async () => {
    const summary = await importAs(newUserId(), mailEvents());
    const parsed = JSON.parse(jsonLine(summary)) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([
      "format",
      "files",
      "records",
      "items",
      "created",
      "updated",
      "unchanged",
      "skipped",
      "errors",
      "skippedReasons",
    ]);
    expect(parsed).toMatchObject({ format: "eml", files: 7, records: 7, items: 7, created: 7, errors: [] });
  });
});
