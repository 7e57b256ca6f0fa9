/**
 * Both client libraries against the real worker: one `npm run dev -- --fake-llm` (with runs allowed back
 * to back, so a subject can have several versions in a test), then the TypeScript client in process,
 * its tools through the Anthropic tool runner and the Vercel AI SDK, the Python client's suite as a
 * child process and the READMEs' examples. The packages installed from a tarball and a folder are checked
 * once, on the embedded database, by test/node/client-packages.test.ts (the `node` project).
 * Every subject is a user of its own, so the tests do not depend on each other's order.
 *
 * The `clients` vitest project. `npm run dev` runs on its embedded database; with TEST_DATABASE_URL, on a
 * fresh database on that server (created here, dropped at the end), as `DATABASE_URL` runs it.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import { betaZodTool } from "@anthropic-ai/sdk/helpers/beta/zod";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ItemInput, UnifiedMemory, UnifiedMemoryError } from "../../clients/typescript/src/index";
import { memoryTools } from "../../clients/typescript/src/tools";
import { servedDocument } from "../../scripts/lib/clients/generate";
import { ROOT } from "../../scripts/lib/dev-secret";
import { createFreshDatabase, dropDatabase } from "../../scripts/lib/migrate";
import { signDevToken } from "../../scripts/lib/token";
import { endUserIdOf } from "../../src/agent/end-user";
import { type DevCommand, fakeLlmControl, startDevCommand } from "../support/node/dev-command";
import { readmeExamples, runExample } from "../support/node/readme-examples";

const run = promisify(execFile);
const SECRET = "clients-test-secret-that-is-long-enough-0123456789";
const adminUrl = process.env.TEST_DATABASE_URL;
let databaseUrl: string | undefined;
let dev: DevCommand;

beforeAll(async () => {
  databaseUrl = adminUrl ? await createFreshDatabase(adminUrl, "um_clients") : undefined;
  dev = await startDevCommand(
    [
      "--fake-llm",
      "--var",
      "MIN_REFRESH_INTERVAL_MINUTES=0",
      // A loaded test machine can take seconds for a write of 300 items. Past the deadline the worker
      // answers 503 while the database still commits, so the client's retry finds the items unchanged.
      "--var",
      "DATABASE_QUERY_TIMEOUT_MS=30000",
    ],
    SECRET,
    { databaseUrl },
  );
}, 240_000);
afterAll(async () => {
  await dev?.stop();
  if (adminUrl && databaseUrl) await dropDatabase(adminUrl, databaseUrl);
}, 60_000);

const tokenOf = (user: string, scopes?: string[]) => signDevToken(SECRET, user, scopes);
const clientOf = (user: string, scopes?: string[]) =>
  new UnifiedMemory({ baseUrl: dev.url, token: tokenOf(user, scopes) });

const note = (externalId: string, body: string, extra: Partial<ItemInput> = {}): ItemInput => ({
  source: "notes",
  externalId,
  kind: "note",
  body,
  occurredAt: "2026-11-20T10:00:00Z",
  ...extra,
});

/** Polls `check` every 250 ms until it answers something, for at most `withinMs`. */
async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  withinMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const thrown = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a UnifiedMemoryError");
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(UnifiedMemoryError);
      return error as UnifiedMemoryError;
    },
  );

it("runs npm run dev on a fresh database on TEST_DATABASE_URL's server when set, else on its embedded one", () => {
  const database = /\[dev\] database: (.*)/.exec(dev.output())?.[1];
  expect(database).toContain(databaseUrl ? new URL(databaseUrl).pathname : "embedded PGlite");
});

describe("the TypeScript client against the worker", () => {
  it("ingests and searches with every filter, across pages", async () => {
    const um = clientOf("ts-search");
    const ingested = await um.items.upsert([
      note("m1", "The Kestrel cut-over moves to 3 March.", {
        source: "mail",
        kind: "email",
        title: "Kestrel cut-over plan",
        author: "Ada Lovelace <ada@example.com>",
        participants: ["Ben Castillo"],
        occurredAt: "2026-02-10T09:00:00Z",
      }),
      note("c1", "Kestrel stand-up notes", {
        source: "chat",
        kind: "message",
        author: "Ben Castillo",
        occurredAt: "2026-02-20T09:00:00Z",
      }),
      note("d1", "Kestrel architecture and its risks", {
        source: "docs",
        kind: "doc",
        author: "Chloe Dubois",
        occurredAt: "2026-03-05T09:00:00Z",
      }),
      note("n1", "Groceries for the weekend", { occurredAt: "2026-02-15T09:00:00Z" }),
    ]);
    expect(ingested).toMatchObject({ created: 4, failed: 0, requests: 1 });
    const ids = async (search: ReturnType<typeof um.items.search>) =>
      (await search.toArray()).map((hit) => hit.externalId).sort();

    // Keyword mode, stated: a hybrid search would also find n1 by meaning once the queue has embedded it.
    expect(await ids(um.items.search({ q: "kestrel", mode: "keyword" }))).toEqual(["c1", "d1", "m1"]);
    expect(await ids(um.items.search({ q: "kestrel", kind: ["email", "doc"] }))).toEqual(["d1", "m1"]);
    expect(
      await ids(um.items.search({ since: "2026-02-15", until: new Date("2026-03-01T00:00:00Z") })),
    ).toEqual(["c1", "n1"]);
    expect(await ids(um.items.search({ people: "Ben Castillo" }))).toEqual(["c1", "m1"]);
    const pages = [];
    for await (const page of um.items.search({ q: "kestrel", mode: "keyword", limit: 1 }).pages())
      pages.push(page.items.length);
    expect(pages).toEqual([1, 1, 1]);

    const again = await um.items.upsert([
      note("n1", "Groceries for the weekend", { occurredAt: "2026-02-15T09:00:00Z" }),
    ]);
    expect(again.items[0]).toMatchObject({ ok: true, status: "unchanged" });
    const item = await um.items.get(ingested.items[0]!.ok ? ingested.items[0]!.id : "");
    expect(item).toMatchObject({ externalId: "m1", ownerId: "ts-search", participants: ["Ben Castillo"] });
  });

  it("reads a memory through its 202, then gets not_modified for its ETag", async () => {
    const um = clientOf("ts-memory");
    expect((await um.memory.get()).status).toBe("empty");
    await um.items.upsert([note("p1", "Ada leads the payments migration; the cut-over is on 3 March.")]);
    expect(await um.memory.get()).toMatchObject({ status: "generating", retryAfter: expect.any(Number) });
    const ready = await um.memory.get({ wait: 60 });
    if (ready.status !== "ready") throw new Error(`expected ready, got ${ready.status}`);
    expect(ready.memory).toContain("[1]");
    expect(ready.etag).toContain(ready.version);
    expect(await um.memory.get({ ifNoneMatch: ready.etag })).toEqual({
      status: "not_modified",
      etag: ready.etag,
    });
    const statements = await um.memory.get({ format: "json" });
    expect(statements.status === "ready" && statements.statements?.length).toBeGreaterThan(0);
  });

  it("iterates versions and runs across pages, and reads one version", async () => {
    const um = clientOf("ts-history");
    await um.items.upsert([note("h1", "The Kestrel launch review is on Friday.")]);
    const first = await um.memory.get({ wait: 60 });
    expect(first.status).toBe("ready");
    await um.items.upsert([note("h2", "Ben owns the Kestrel rollback runbook.")]);
    expect((await um.memory.refresh()).status).toMatch(/scheduled|running/);
    await eventually(async () => (await um.memory.versions().toArray()).length >= 2);

    const pages = [];
    for await (const page of um.memory.versions({ limit: 1 }).pages())
      pages.push(page.versions.map((v) => v.id));
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(pages.every((ids) => ids.length === 1)).toBe(true);
    expect(new Set(pages.flat()).size).toBe(pages.length);
    const runs = await um.memory.runs({ limit: 1 }).toArray();
    expect(runs.filter((r) => r.status === "succeeded").length).toBeGreaterThanOrEqual(2);
    const version = await um.memory.version(pages[0]![0]!);
    expect(version.markdown).toContain("Kestrel");
    const latest = await um.memory.get({ ifNoneMatch: first.status === "ready" ? first.etag : "" });
    expect(latest.status).toBe("ready");
  });

  it("is refused a refresh during a backoff: 429 rate_limited with its Retry-After, not retried", async () => {
    const user = "ts-backoff";
    await fakeLlmControl(dev.fakeLlmUrl!, "faults", {
      match: await endUserIdOf(user),
      fault: { kind: "server_error", status: 500 },
      times: 50,
    });
    let requests = 0;
    const um = new UnifiedMemory({
      baseUrl: dev.url,
      token: tokenOf(user),
      fetch: (input, init) => {
        requests++;
        return fetch(input, init);
      },
    });
    await um.items.upsert([note("b1", "Anything at all")]);
    // The read starts the run; on a quick machine the run may already have failed when it answers.
    const first = await um.memory.get().catch((error: unknown) => error);
    expect(first).toMatchObject(
      first instanceof Error ? { code: "generation_failing", status: 503 } : { status: "generating" },
    );
    await eventually(async () => (await um.memory.runs().toArray()).some((r) => r.status === "failed"));
    requests = 0;
    const error = await thrown(um.memory.refresh());
    expect(error).toMatchObject({ code: "rate_limited", status: 429 });
    expect(error.retryAfter).toBeGreaterThan(0);
    expect(error.requestId).toMatch(/\S/);
    expect(requests).toBe(1);
  });

  it("reads a team's memory as a member; anyone else gets not_found", async () => {
    const lead = clientOf("ts-lead");
    await lead.members.add("ts-mate");
    await lead.members.add("ts-outsider");
    expect(
      await lead.teams.put("ts-team", { name: "TS team", members: ["ts-lead", "ts-mate"] }),
    ).toMatchObject({
      id: "ts-team",
      members: ["ts-lead", "ts-mate"],
    });
    const shared = await lead.items.upsert([
      note("t1", "The TS team ships the importer on Tuesday.", { sharedWith: ["team:ts-team"] }),
    ]);
    const team = clientOf("ts-mate").teams.memory("ts-team");
    const memory = await team.get({ wait: 60 });
    if (memory.status !== "ready") throw new Error(`expected ready, got ${memory.status}`);
    expect(memory.citations.map((c) => c.id)).toContain(shared.items[0]!.ok && shared.items[0]!.id);
    expect((await team.versions().toArray()).length).toBe(1);
    const outsider = await thrown(clientOf("ts-outsider").teams.memory("ts-team").get());
    expect(outsider).toMatchObject({ code: "not_found", status: 404 });
  });

  it("splits a request the API refuses as too large (413), and reports a 422's details per item", async () => {
    const um = clientOf("ts-limits");
    const many = Array.from({ length: 600 }, (_, i) => note(`x${i}`, `item ${i}`));
    const split = await um.items.upsert(many, { maxBatchItems: 1000 });
    expect(split).toMatchObject({ created: 600, failed: 0, requests: 3 });

    const mixed = await um.items.upsert([
      note("ok-1", "fine"),
      { ...note("bad", "wrong kind"), kind: "bogus" as ItemInput["kind"] },
      note("ok-2", "fine too", { sharedWith: ["nobody-here"] }),
      note("ok-3", "fine as well"),
    ]);
    expect(mixed).toMatchObject({ created: 2, failed: 2 });
    expect(mixed.items[1]).toMatchObject({
      ok: false,
      externalId: "bad",
      error: { code: "validation_failed", status: 422 },
    });
    expect(mixed.items[1]!.ok === false && mixed.items[1]!.problems[0]!.path).toBe("kind");
    expect(mixed.items[2]!.ok === false && mixed.items[2]!.problems[0]).toMatchObject({ path: "sharedWith" });
  });

  it("throws errors that carry their code, status and request id", async () => {
    const um = clientOf("ts-errors");
    expect(await thrown(um.items.get(randomUUID()))).toMatchObject({
      code: "not_found",
      status: 404,
      requestId: expect.any(String),
    });
    expect(
      await thrown(new UnifiedMemory({ baseUrl: dev.url, token: "not-a-jwt" }).memory.get()),
    ).toMatchObject({
      code: "unauthorized",
      status: 401,
    });
    expect(await thrown(um.items.search({ since: "last tuesday" }).toArray())).toMatchObject({
      code: "bad_request",
      status: 400,
    });
    const readOnly = clientOf("ts-errors", ["memory:read"]);
    expect(await thrown(readOnly.items.delete(randomUUID()))).toMatchObject({
      code: "forbidden",
      status: 403,
    });
    expect(await thrown(um.memory.version(randomUUID()))).toMatchObject({ code: "not_found", status: 404 });
  });

  it("reads the caller's audit trail and usage; an admin lists, exports and totals the workspace's", async () => {
    const since = new Date(Date.now() - 60_000);
    const um = clientOf("ts-audit");
    const ingested = await um.items.upsert([note("a1", "The Kestrel audit note.")]);
    const id = ingested.items[0]!.ok ? ingested.items[0]!.id : "";
    await um.items.get(id);
    const read = await eventually(async () =>
      (await um.me.audit({ action: "item.read", since }).toArray()).find((e) => e.itemIds.includes(id)),
    );
    expect(read).toMatchObject({ actor: "ts-audit", subject: "ts-audit", channel: "http", status: 200 });
    const usage = await um.me.usage({ since, until: new Date() });
    expect(usage.until).toBe(new Date().toISOString().slice(0, 10));
    expect(Array.isArray(usage.days)).toBe(true);

    const listed = await um.audit.list({ subject: "ts-audit", action: "item.read", since }).toArray();
    expect(listed.map((e) => e.id)).toContain(read.id);
    const exported = [];
    for await (const event of um.audit.export({ subject: "ts-audit", since })) exported.push(event.id);
    expect(exported).toContain(read.id);
    const ledger = await um.usage.list({ sort: "subject" });
    expect(ledger).toMatchObject({ sort: "subject", subjects: expect.any(Array) });

    const reader = clientOf("ts-audit", ["memory:read"]);
    expect(await thrown(reader.audit.list().toArray())).toMatchObject({
      code: "forbidden",
      status: 403,
    });
  });

  it("manages the workspace's webhooks as an admin: the secret once, the log, and a 403 for a member", async () => {
    const um = clientOf(`ts-hooks-${randomUUID().slice(0, 8)}`);
    const created = await um.webhooks.create({
      url: "https://hooks.example.com/ts-client",
      events: ["memory.updated", "subject.erased"],
      description: "the TypeScript client's",
    });
    expect(created).toMatchObject({ enabled: true, secret: expect.stringMatching(/^whsec_/) });
    try {
      const listed = await um.webhooks.list();
      expect(listed.webhooks.map((w) => w.id)).toContain(created.id);
      expect(JSON.stringify(listed)).not.toContain(created.secret);
      expect(await um.webhooks.update(created.id, { description: "renamed" })).toMatchObject({
        description: "renamed",
      });
      const rotated = await um.webhooks.rotateSecret(created.id);
      expect(rotated.secret).not.toBe(created.secret);
      await um.webhooks.test(created.id);
      const { deliveries } = await eventually(async () => {
        const log = await um.webhooks.deliveries(created.id);
        return log.deliveries.length > 0 ? log : undefined;
      });
      expect(deliveries[0]).toMatchObject({ eventType: "webhook.test", attempts: expect.any(Number) });
      const member = clientOf("ts-hooks-member", ["memory:read", "items:write"]);
      expect(await thrown(member.webhooks.list())).toMatchObject({ code: "forbidden", status: 403 });
    } finally {
      await um.webhooks.delete(created.id);
    }
    expect(await thrown(um.webhooks.get(created.id))).toMatchObject({ code: "not_found", status: 404 });
  });

  it("erases everything of the caller", async () => {
    const um = clientOf("ts-erase");
    await um.items.upsert([note("e1", "Soon gone")]);
    await um.me.erase();
    expect(await um.items.search().toArray()).toEqual([]);
    expect((await um.memory.get()).status).toBe("empty");
  });

  it("was generated from the document the worker serves", async () => {
    const served = (await (await fetch(`${dev.url}/openapi.json`)).json()) as Record<string, unknown>;
    const { servers: _servers, ...document } = served;
    expect(document).toEqual(servedDocument());
  });
});

describe("the tools", () => {
  it("run in the Anthropic SDK's tool runner: the model calls get_memory and reads the memory", async () => {
    const user = "ts-tools-anthropic";
    const um = clientOf(user);
    await um.items.upsert([note("k1", "Kestrel ships on Tuesday; Ada owns the launch checklist.")]);
    expect((await um.memory.get({ wait: 60 })).status).toBe("ready");
    const question = `What is on my plate this week? (${randomUUID()})`;
    const { id } = await fakeLlmControl(dev.fakeLlmUrl!, "scripts", {
      match: question,
      turns: [{ toolCalls: [{ name: "get_memory", input: {} }] }, { text: "Kestrel ships on Tuesday." }],
    });
    const { getMemory, searchItems } = memoryTools(um);
    const anthropic = new Anthropic({ apiKey: "fake-key", baseURL: `${dev.fakeLlmUrl}/anthropic` });
    const final = await anthropic.beta.messages.toolRunner({
      model: "fake-generator",
      max_tokens: 1024,
      max_iterations: 4,
      thread: false,
      messages: [{ role: "user", content: question }],
      tools: [betaZodTool(getMemory), betaZodTool(searchItems)],
    });
    expect(final.content).toEqual([
      expect.objectContaining({ type: "text", text: "Kestrel ships on Tuesday." }),
    ]);

    const script = await fakeLlmControl<{ requests: { body: unknown }[] }>(dev.fakeLlmUrl!, `scripts/${id}`);
    const [asked, answered] = script.requests.map((r) => JSON.stringify(r.body));
    expect(asked).toContain('"name":"get_memory"');
    expect(asked).toContain('"input_schema"');
    expect(answered).toContain("tool_result");
    expect(answered).toContain("Ada owns the launch checklist");
  });

  it("run in the Vercel AI SDK: execute results reach the model, and a failure is a tool error", async () => {
    const um = clientOf("ts-tools-ai");
    await um.items.upsert([note("a1", "The Falcon budget review moved to Thursday.")]);
    const { getMemory, searchItems } = memoryTools(um, { wait: 60 });
    const prompts: unknown[] = [];
    const toolsOffered: unknown[] = [];
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        prompts.push(options.prompt);
        toolsOffered.push(options.tools);
        const usage = {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        };
        if (step++ > 0) {
          return {
            content: [{ type: "text", text: "done" }],
            finishReason: { unified: "stop", raw: "stop" },
            usage,
            warnings: [],
          };
        }
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: "c1",
              toolName: "search_items",
              input: JSON.stringify({ query: "falcon budget" }),
            },
            {
              type: "tool-call",
              toolCallId: "c2",
              toolName: "get_memory",
              input: JSON.stringify({ team: "no-such-team" }),
            },
          ],
          finishReason: { unified: "tool-calls", raw: "tool_use" },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      prompt: "When is the Falcon budget review?",
      tools: { search_items: tool(searchItems), get_memory: tool(getMemory) },
      stopWhen: stepCountIs(3),
    });
    const first = result.steps[0]!;
    const found = first.toolResults.find((r) => r.toolName === "search_items");
    expect(found?.output).toMatchObject({ hits: [expect.objectContaining({ title: null, kind: "note" })] });
    expect(first.content.find((part) => part.type === "tool-error")).toMatchObject({
      toolName: "get_memory",
    });
    expect(JSON.stringify(toolsOffered[0])).toContain('"query"');
    expect(JSON.stringify(prompts[1])).toContain("Falcon budget review moved");
    expect(result.text).toBe("done");
  });
});

describe("the Python client against the worker", () => {
  it("passes its live suite (python3 -m unittest tests.test_live)", async () => {
    const { stderr } = await run("python3", ["-m", "unittest", "-v", "tests.test_live"], {
      cwd: `${ROOT}clients/python`,
      timeout: 300_000,
      env: {
        ...process.env,
        UNIFIED_MEMORY_URL: dev.url,
        UNIFIED_MEMORY_TEST_SECRET: SECRET,
        UNIFIED_MEMORY_FAKE_LLM_URL: dev.fakeLlmUrl!,
      },
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`python3 -m unittest failed:\n${error.stderr ?? ""}${error.stdout ?? ""}`);
    });
    expect(stderr).toMatch(/Ran \d+ tests/);
    expect(stderr).toMatch(/\nOK\s*$/);
    expect(stderr).not.toMatch(/skipped/);
  }, 320_000);
});

/** The question of the tools example in clients/typescript/README.md, which the fake LLM answers by script. */
const TOOLS_QUESTION = "What is on my plate this week?";
const READMES = {
  "README.md": ["sh", "ts", "python"],
  "clients/typescript/README.md": ["ts"],
  "clients/python/README.md": ["python"],
} as const;

describe("the READMEs' examples", () => {
  beforeAll(async () => {
    await run(`${ROOT}node_modules/.bin/tsc`, ["-p", `${ROOT}clients/typescript/tsconfig.json`], {
      timeout: 120_000,
    });
    await fakeLlmControl(dev.fakeLlmUrl!, "scripts", {
      match: TOOLS_QUESTION,
      turns: [{ toolCalls: [{ name: "get_memory", input: {} }] }, { text: "Kestrel ships on Tuesday." }],
    });
  }, 150_000);

  it("are marked in every README, in every language it shows", () => {
    for (const [readme, languages] of Object.entries(READMES)) {
      expect(new Set(readmeExamples(readme).map((e) => e.language)), readme).toEqual(new Set(languages));
    }
    expect(readmeExamples("clients/typescript/README.md").some((e) => e.code.includes(TOOLS_QUESTION))).toBe(
      true,
    );
  });

  for (const readme of Object.keys(READMES)) {
    for (const example of readmeExamples(readme)) {
      it(`run: ${example.where} (${example.language})`, async () => {
        const token = tokenOf(`example-${randomUUID().slice(0, 8)}`);
        const output = await runExample(example, {
          UNIFIED_MEMORY_URL: dev.url,
          UNIFIED_MEMORY_TOKEN: token,
          TOKEN: token,
          AUTH_JWT_SECRET: SECRET,
          ANTHROPIC_API_KEY: "fake-key",
          ANTHROPIC_BASE_URL: `${dev.fakeLlmUrl}/anthropic`,
        });
        if (example.expects) expect(output).toContain(example.expects);
      }, 200_000);
    }
  }
});
