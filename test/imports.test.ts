/// <reference types="vite/client" />
/**
 * Imports through the service, end to end: POST /imports stores the file and the real imports queue hands it
 * to the real consumer, which reads it with the import command's own readers and stores the items; the
 * summary is the one the command computes for the same file. Re-importing writes nothing new; a hostile file
 * ends with its reason; an import advances in bounded runs and resumes after a failed one; another user
 * sees neither the import nor its items.
 */
import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { IMPORT_BUDGET, type ImportBudget } from "../src/app/imports";
import type { Services } from "../src/app/services";
import { consumeImportBatch, consumeImportDeadLetters } from "../src/cron/import-consumer";
import type { Env } from "../src/env";
import { FORMATS } from "../src/import/formats";
import type { ImportFileReader } from "../src/import/import-format";
import { MAX_IMPORT_BYTES, SERVICE_IMPORT_LIMITS } from "../src/import/import-jobs";
import { runImport as runCliImport } from "../src/import/run-import";
import { bytesSource } from "../src/import/zip-directory";
import worker from "../src/index";
import { READ_WRITE, tokenFor } from "./support/auth";
import { bytes, concatBytes, fixtures } from "./support/import-fixtures";
import { zipOf } from "./support/import-hostile";
import { warmUpWorker } from "./support/items";
import { clearAlarm, services, testDb } from "./support/memory-agent";

const slackFiles = import.meta.glob<string>("./fixtures/import/slack/hfaran-testarchive/**/*.json", {
  query: "?raw",
  import: "default",
  eager: true,
});

/** The Slack fixture export as the .zip Slack hands out (paths inside it relative to the export folder). */
const slackZip = () =>
  zipOf(
    Object.fromEntries(
      Object.entries(slackFiles).map(([path, text]) => [path.split("hfaran-testarchive/")[1]!, text]),
    ),
  );

/** An mbox of the .eml fixtures, each after a `From ` separator line. */
const mboxOf = (names: string[]) =>
  bytes(
    names
      .map(
        (name) =>
          `From sender@example.com Thu Jan  4 10:00:00 2024\n${fixtures.eml[name]!.replace(/\r\n/g, "\n")}\n`,
      )
      .join("\n"),
  );

interface ImportAnswer {
  id: string;
  status: string;
  format: string;
  name: string;
  bytes: number;
  failure: string | null;
  runs: number;
  summary: {
    records: number;
    items: number;
    created: number;
    updated: number;
    unchanged: number;
    skipped: number;
    rejected: number;
    skippedReasons: Record<string, number>;
    errors: { file: string; position: string; message: string }[];
  };
}

const users: string[] = [];
const newUser = (label: string) => {
  const user = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  users.push(user);
  return user;
};

beforeAll(warmUpWorker);
afterEach(async () => {
  for (const user of users.splice(0)) await clearAlarm(user);
});

async function call(user: string, method: string, path: string, body?: Uint8Array): Promise<Response> {
  const token = await tokenFor(user, READ_WRITE);
  const ctx = createExecutionContext();
  const request = new Request(`http://local${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/octet-stream" },
    body,
  });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function upload(user: string, file: Uint8Array, query: string): Promise<ImportAnswer> {
  const res = await call(user, "POST", `/imports?${query}`, file);
  expect(res.status, await res.clone().text()).toBe(202);
  return (await res.json()) as ImportAnswer;
}

/** The import once it is done or failed (the queue runs it within seconds), else throws. */
async function settled(user: string, id: string): Promise<ImportAnswer> {
  for (let i = 0; i < 150; i++) {
    const job = (await (await call(user, "GET", `/imports/${id}`)).json()) as ImportAnswer;
    if (job.status === "done" || job.status === "failed") return job;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the import did not end within 30 s");
}

/** What the import command counts for the same bytes (its readers and pipeline, sending nothing). */
async function cliSummary(format: string, name: string, data: Uint8Array) {
  const reader: ImportFileReader = {
    bytes: async () => data,
    async *chunks() {
      for (let i = 0; i < data.length; i += 1024 * 1024) yield data.subarray(i, i + 1024 * 1024);
    },
    randomAccess: async () => ({ ...bytesSource(data), close: async () => {} }),
  };
  const file = { path: name, relative: name, size: data.length, mtime: new Date("2024-05-01T12:00:00Z") };
  return runCliImport({
    format,
    files: 1,
    source: format,
    events: FORMATS[format]!.read([file], { reader, limits: SERVICE_IMPORT_LIMITS }),
  });
}

const REAL_EXPORTS = [
  {
    format: "mbox",
    name: "mail.mbox",
    file: () => mboxOf(["mixed.eml", "bounce.eml", "calendar-event.eml"]),
  },
  { format: "ics", name: "calendar.ics", file: () => bytes(fixtures.ics["Office-2012-owa.ics"]!) },
  { format: "vcf", name: "contacts.vcf", file: () => bytes(fixtures.vcf["John_Doe_IPHONE.vcf"]!) },
  { format: "slack", name: "slack-export.zip", file: slackZip },
];

describe("POST /imports", () => {
  it.each(REAL_EXPORTS)(
    "imports a real $format export through the queue with the summary the import command gives, and a second upload changes nothing",
    async ({ format, name, file }) => {
      const user = newUser("importer");
      const data = file();
      const query = `name=${encodeURIComponent(name)}&modifiedAt=2024-05-01T12:00:00Z`;
      const queued = await upload(user, data, query);
      expect(queued).toMatchObject({ format, name, bytes: data.length });
      expect(["queued", "running", "done"]).toContain(queued.status);

      const done = await settled(user, queued.id);
      const cli = await cliSummary(format, name, data);
      expect(done.status, done.failure ?? "").toBe("done");
      expect(done.summary).toMatchObject({
        records: cli.records,
        items: cli.items,
        skipped: cli.skipped,
        skippedReasons: cli.skippedReasons,
        created: cli.items,
        updated: 0,
        unchanged: 0,
        rejected: 0,
      });
      expect(done.summary.errors.map((e) => e.message)).toEqual(cli.errors.map((e) => e.message));
      expect(cli.items).toBeGreaterThan(0);

      // The items are the caller's, under the format's source, findable by search.
      const found = (await (await call(user, "GET", `/items?limit=100`)).json()) as {
        items: { source: string }[];
      };
      expect(found.items.length).toBe(Math.min(cli.items, 100));
      expect(new Set(found.items.map((i) => i.source))).toEqual(new Set([format]));

      const again = await settled(user, (await upload(user, data, query)).id);
      expect(again.summary).toMatchObject({ items: cli.items, created: 0, updated: 0, unchanged: cli.items });
    },
  );

  it("tells the format from the file name, and refuses a name it cannot tell or an unknown format", async () => {
    const user = newUser("formats");
    const job = await upload(user, bytes(fixtures.vcf["rfc6350-example.vcf"]!), "name=people.vcf");
    expect(job.format).toBe("vcf");
    await settled(user, job.id);
    for (const query of ["name=export.json", "name=notes.txt", "format=pdf&name=a.pdf"]) {
      const res = await call(user, "POST", `/imports?${query}`, bytes("{}"));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/format/);
    }
  });

  it("takes the file from a multipart form too (a browser form), named by the form's file name", async () => {
    const user = newUser("form");
    const form = new FormData();
    form.set("file", new File([fixtures.vcf["outlook-2003.vcf"]!], "outlook.vcf"));
    const token = await tokenFor(user, READ_WRITE);
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://local/imports", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: form,
      }) as Request<unknown, IncomingRequestCfProperties>,
      env as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status, await res.clone().text()).toBe(202);
    const job = (await res.json()) as ImportAnswer;
    expect(job).toMatchObject({ name: "outlook.vcf", format: "vcf" });
    expect((await settled(user, job.id)).summary.created).toBeGreaterThan(0);
  });

  it("refuses a file over the size limit, and an empty one, storing nothing", async () => {
    const user = newUser("big");
    const big = new Uint8Array(MAX_IMPORT_BYTES + 1);
    const refused = await call(user, "POST", "/imports?format=mbox&name=big.mbox", big);
    expect(refused.status).toBe(413);
    expect((await call(user, "POST", "/imports?format=mbox&name=empty.mbox", new Uint8Array())).status).toBe(
      400,
    );
    const listed = (await (await call(user, "GET", "/imports")).json()) as { imports: unknown[] };
    expect(listed.imports).toEqual([]);
    const pieces = await services().imports.list(user, 10);
    expect(pieces).toEqual([]);
  });

  it("ends a Slack export that is a zip bomb as failed, naming the entry and the limit, with nothing stored", async () => {
    const user = newUser("bomb");
    const bomb = zipOf({
      "users.json": "0".repeat(SERVICE_IMPORT_LIMITS.maxFileBytes + 1024),
    });
    expect(bomb.length).toBeLessThan(100_000);
    const failed = await settled(user, (await upload(user, bomb, "name=export.zip")).id);
    expect(failed.status).toBe("failed");
    expect(failed.failure).toMatch(
      /nothing in the file could be imported: users\.json inflates to more than 16 MB/,
    );
    expect(failed.summary).toMatchObject({ items: 0, created: 0 });
    const found = (await (await call(user, "GET", "/items")).json()) as { items: unknown[] };
    expect(found.items).toEqual([]);
  });

  it("skips an mbox message over the record limit with the reason (a 5 MB line), importing the rest", async () => {
    const user = newUser("hugeline");
    const huge = `From a@example.com Thu Jan  4 10:00:00 2024\nSubject: huge\n\n${"x".repeat(5 * 1024 * 1024)}\n\n`;
    const file = concatBytes([bytes(huge), mboxOf(["mixed.eml"])]);
    const done = await settled(user, (await upload(user, file, "name=huge.mbox")).id);
    expect(done.status).toBe("done");
    expect(done.summary).toMatchObject({ records: 2, items: 1, created: 1, skipped: 1 });
    expect(done.summary.skippedReasons).toEqual({ "message over 4 MB (--max-record-mb)": 1 });
  });

  it("imports a ChatGPT conversation whose messages are each other's parents (a cycle) once, in bounded time", async () => {
    const user = newUser("cycle");
    const message = (role: string, text: string, at: number) => ({
      author: { role },
      content: { content_type: "text", parts: [text] },
      create_time: at,
      recipient: "all",
    });
    const conversations = [
      {
        id: "conv-cycle",
        title: "Going round",
        create_time: 1_700_000_000,
        current_node: "a",
        mapping: {
          a: {
            id: "a",
            parent: "b",
            children: ["b"],
            message: message("user", "Hello again", 1_700_000_001),
          },
          b: { id: "b", parent: "a", children: ["a"], message: message("assistant", "Hello", 1_700_000_000) },
        },
      },
    ];
    const file = bytes(JSON.stringify(conversations));
    const started = Date.now();
    const done = await settled(user, (await upload(user, file, "format=chatgpt&name=conversations.json")).id);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(done).toMatchObject({ status: "done", format: "chatgpt" });
    expect(done.summary).toMatchObject({ records: 1, items: 1, created: 1 });
  });

  it("keeps a note whose front matter is a YAML alias bomb, naming the problem, without expanding it", async () => {
    const user = newUser("aliasbomb");
    const levels = "abcdefghi".split("");
    const yaml = levels
      .map((name, i) =>
        i === 0
          ? `${name}: &${name} [${Array(9).fill('"lol"').join(", ")}]`
          : `${name}: &${name} [${Array(9)
              .fill(`*${levels[i - 1]}`)
              .join(", ")}]`,
      )
      .join("\n");
    const note = bytes(`---\n${yaml}\n---\n# Bomb\nThe body.\n`);
    const started = Date.now();
    const done = await settled(user, (await upload(user, note, "name=2024-03-01%20bomb.md")).id);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(done).toMatchObject({ status: "done", format: "markdown" });
    expect(done.summary).toMatchObject({ items: 1, created: 1 });
    const found = (await (await call(user, "GET", "/items?kind=doc")).json()) as { items: { id: string }[] };
    const item = (await (await call(user, "GET", `/items/${found.items[0]!.id}`)).json()) as {
      metadata: { frontMatterProblem?: string };
    };
    expect(item.metadata.frontMatterProblem).toMatch(/not valid YAML: .*alias/i);
  });
});

describe("an import's access", () => {
  it("is the caller's: another user gets 404 for it, does not list it, and does not see its items", async () => {
    const owner = newUser("owner");
    const other = newUser("other");
    const job = await settled(
      owner,
      (await upload(owner, bytes(fixtures.vcf["John_Doe_ANDROID.vcf"]!), "name=c.vcf")).id,
    );
    expect(job.summary.created).toBeGreaterThan(0);
    expect((await call(other, "GET", `/imports/${job.id}`)).status).toBe(404);
    expect((await call(other, "GET", "/imports/not-a-uuid")).status).toBe(404);
    const theirs = (await (await call(other, "GET", "/imports")).json()) as { imports: unknown[] };
    expect(theirs.imports).toEqual([]);
    const mine = (await (await call(owner, "GET", "/imports")).json()) as { imports: { id: string }[] };
    expect(mine.imports.map((i) => i.id)).toEqual([job.id]);
    const seen = (await (await call(other, "GET", "/items?kind=contact")).json()) as { items: unknown[] };
    expect(seen.items).toEqual([]);
  });

  it("is audited as import.create, refusals included", async () => {
    const user = newUser("audited");
    await settled(user, (await upload(user, bytes(fixtures.vcf["John_Doe_ANDROID.vcf"]!), "name=c.vcf")).id);
    expect((await call(user, "POST", "/imports?name=x.unknown", bytes("x"))).status).toBe(400);
    const deadline = Date.now() + 15_000;
    let events: { action: string; status: number }[] = [];
    while (events.length < 2 && Date.now() < deadline) {
      const res = await call(user, "GET", "/me/audit?action=import.create");
      events = ((await res.json()) as { events: typeof events }).events;
      if (events.length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(events.map((e) => e.status).sort()).toEqual([202, 400]);
  });

  it("goes with its owner when they erase themselves", async () => {
    const user = newUser("erased");
    const job = await settled(
      user,
      (await upload(user, bytes(fixtures.vcf["John_Doe_ANDROID.vcf"]!), "name=c.vcf")).id,
    );
    expect((await call(user, "DELETE", "/me")).status).toBe(204);
    expect(await services().imports.get(user, job.id)).toBeNull();
  });

  it("needs the items:write scope", async () => {
    const token = await tokenFor(newUser("reader"), ["memory:read"]);
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://local/imports?name=a.vcf", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: bytes(fixtures.vcf["John_Doe_ANDROID.vcf"]!),
      }) as Request<unknown, IncomingRequestCfProperties>,
      env as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(403);
  });
});

/** 1,200 small vCards: more than two batches of 500. */
const manyCards = () =>
  bytes(
    Array.from(
      { length: 1200 },
      (_, i) =>
        `BEGIN:VCARD\r\nVERSION:3.0\r\nUID:card-${i}\r\nFN:Person ${i}\r\nEMAIL:p${i}@example.com\r\nEND:VCARD\r\n`,
    ).join(""),
  );

/** The services with a queue that only records what it is sent, so the test runs each message itself. */
function servicesWithQueue(sent: string[], wrap?: (s: Services) => Partial<Services>): Services {
  const base = services();
  return Object.create(base, {
    importQueue: { value: { send: async (id: string) => void sent.push(id) } },
    ...Object.fromEntries(Object.entries(wrap?.(base) ?? {}).map(([k, v]) => [k, { value: v }])),
  }) as Services;
}

async function runMessage(s: Services, importId: string, budget: ImportBudget, attempts = 1) {
  const batch = createMessageBatch("unified-memory-imports", [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts, body: { importId } },
  ]);
  return consumeImportBatch(batch, s, budget);
}

async function createQueued(s: Services, user: string, data: Uint8Array) {
  const { createImport } = await import("../src/app/imports");
  const caller = { userId: user, workspaceId: "default", subjectKey: user, scopes: new Set(READ_WRITE) };
  const body = new Blob([data]).stream();
  return createImport(s, caller, { name: "cards.vcf" }, body, data.length);
}

describe("an import's runs", () => {
  const budget: ImportBudget = { ...IMPORT_BUDGET, items: 500 };

  it("advance in bounded batches (running, with how far it got) until done; a redelivered message does nothing", async () => {
    const user = newUser("runs");
    const sent: string[] = [];
    const s = servicesWithQueue(sent);
    const job = await createQueued(s, user, manyCards());
    expect(job.status).toBe("queued");
    expect(sent).toEqual([job.id]);

    expect(await runMessage(s, job.id, budget)).toMatchObject({ more: 1 });
    const first = (await (await call(user, "GET", `/imports/${job.id}`)).json()) as ImportAnswer;
    expect(first).toMatchObject({ status: "running", runs: 1 });
    expect(first.summary).toMatchObject({ records: 500, items: 500, created: 500 });

    expect(await runMessage(s, job.id, budget)).toMatchObject({ more: 1 });
    expect(await runMessage(s, job.id, budget)).toMatchObject({ done: 1 });
    const done = (await (await call(user, "GET", `/imports/${job.id}`)).json()) as ImportAnswer;
    expect(done).toMatchObject({ status: "done", runs: 3 });
    expect(done.summary).toMatchObject({ records: 1200, items: 1200, created: 1200, unchanged: 0 });
    expect(sent).toEqual([job.id, job.id, job.id]);

    expect(await runMessage(s, job.id, budget)).toMatchObject({ finished: 1 });
    expect(await s.imports.piece(job.id, 0)).toBeNull();
  });

  it("resume after a run the database failed from the last committed batch, duplicating no item", async () => {
    const user = newUser("resume");
    const sent: string[] = [];
    let failures = 1;
    const s = servicesWithQueue(sent, (base) => ({
      imports: {
        ...base.imports,
        async progress(id, progress, at) {
          // The second batch's items are stored, then its progress write fails once.
          if (progress.records > 500 && failures-- > 0) throw new Error("database went away");
          return base.imports.progress(id, progress, at);
        },
      },
    }));
    const job = await createQueued(s, user, manyCards());
    const failedRun = await runMessage(s, job.id, { ...budget, items: 5000, leaseMs: 0 });
    expect(failedRun).toMatchObject({ retried: 1 });
    const middle = await s.imports.get(user, job.id);
    expect(middle).toMatchObject({ status: "running" });
    expect(middle!.progress).toMatchObject({ records: 500, created: 500 });

    expect(await runMessage(s, job.id, { ...budget, items: 5000 }, 2)).toMatchObject({ done: 1 });
    const done = await s.imports.get(user, job.id);
    expect(done!.progress).toMatchObject({ records: 1200, items: 1200, updated: 0 });
    // The batch stored before the failed progress write is found unchanged the second time.
    expect(done!.progress.created + done!.progress.unchanged).toBe(1200);
    expect(done!.progress.unchanged).toBe(500);
    const stored = await testDb().execute(sql`select count(*)::int as n from items where owner_id = ${user}`);
    expect(Number(stored.rows[0]!.n)).toBe(1200);
  });

  it("end as failed when the file cannot be read on, with what was read before it stored and counted", async () => {
    const user = newUser("unreadable");
    const cards = (from: number, to: number) =>
      Array.from(
        { length: to - from },
        (_, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nUID:c-${from + i}\r\nFN:P ${from + i}\r\nEND:VCARD\r\n`,
      ).join("");
    // Two pieces of 1 MB; the second cannot be read back.
    const file = bytes(cards(0, 20_000));
    expect(file.length).toBeGreaterThan(1024 * 1024);
    const s = servicesWithQueue([], (base) => ({
      imports: {
        ...base.imports,
        piece: async (id, seq) => (seq === 1 ? null : base.imports.piece(id, seq)),
      },
    }));
    const job = await createQueued(s, user, file);
    expect(await runMessage(s, job.id, { ...budget, items: 100_000 })).toMatchObject({ failed: 1 });
    const failed = await s.imports.get(user, job.id);
    expect(failed).toMatchObject({ status: "failed" });
    expect(failed!.failure).toMatch(/^reading stopped after record \d+: piece 1 of the upload is missing$/);
    const { records, created } = failed!.progress;
    expect(records).toBeGreaterThan(10_000);
    expect(created).toBe(records);
    const stored = await testDb().execute(sql`select count(*)::int as n from items where owner_id = ${user}`);
    expect(Number(stored.rows[0]!.n)).toBe(created);
  }, 60_000);

  it("end as failed, keeping how far they got, when the dead-letter queue receives their message", async () => {
    const user = newUser("dead");
    const s = servicesWithQueue([]);
    const job = await createQueued(s, user, manyCards());
    expect(await runMessage(s, job.id, budget)).toMatchObject({ more: 1 });
    await consumeImportDeadLetters(
      createMessageBatch("unified-memory-imports-dlq", [
        { id: crypto.randomUUID(), timestamp: new Date(), attempts: 4, body: { importId: job.id } },
      ]),
      s,
    );
    const failed = await s.imports.get(user, job.id);
    expect(failed).toMatchObject({ status: "failed" });
    expect(failed!.failure).toMatch(/could not continue/);
    expect(failed!.progress).toMatchObject({ records: 500, created: 500 });
    expect(await s.imports.piece(job.id, 0)).toBeNull();
  });
});
