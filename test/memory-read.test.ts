import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { bearer, newUserId } from "./support/auth";
import { item } from "./support/items";
import {
  clearAlarm,
  FakeGenerator,
  fetchSettled,
  hoursAgo,
  ingestSettled,
  installAgent,
  runAlarm,
  seedMemory,
  services,
  statement,
} from "./support/memory-agent";

const used: string[] = [];
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

/** A user with two items whose agent runs `generator` (null: no LLM) on a clock of its own. */
async function subjectWithItems(generator: FakeGenerator | null = new FakeGenerator()) {
  const userId = newUserId();
  used.push(userId);
  const { stub, clock } = await installAgent(userId, generator);
  const ids = await ingestSettled(
    userId,
    [0, 1].map((i) => item({ externalId: `m-${i}`, title: `Payments migration ${i}` })),
  );
  return { userId, ids, stub, clock };
}

const get = async (userId: string, path = "/memory", headers: Record<string, string> = {}) =>
  exports.default.fetch(`http://local${path}`, { headers: { ...(await bearer(userId)), ...headers } });

interface MemoryBody {
  memory: string;
  version: string;
  generatedAt: string;
  stale: boolean;
  citations: { id: string; kind: string | null; title: string | null; occurredAt: string | null }[];
}

interface FailingBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

describe("GET /memory", () => {
  it("answers 202 generating with Retry-After when no memory exists, and asks the agent for a first run", async () => {
    const generator = new FakeGenerator();
    const { userId, ids, stub } = await subjectWithItems(generator);
    generator.push({ kind: "accept", statements: [statement("Work", "Leads payments", ids[0]!)] });

    const res = await fetchSettled(userId, "GET", "/memory");
    expect(res.status).toBe(202);
    expect(res.headers.get("Retry-After")).toBe("5");
    expect(await res.json()).toEqual({ status: "generating", retryAfter: 5 });
    expect((await stub.status()).phase).toBe("scheduled");

    expect(await runAlarm(userId)).toBe(true);
    expect(generator.requests).toHaveLength(1);
    expect(generator.requests[0]).toMatchObject({ subjectKey: userId, trigger: "read", previous: null });

    const ready = await get(userId);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as MemoryBody;
    expect(body.memory).toBe("## Work\n- Leads payments [1]");
    expect(body.stale).toBe(false);
    expect(body.citations).toEqual([
      { id: ids[0], kind: "email", title: "Payments migration 0", occurredAt: "2026-03-01T10:00:00.000Z" },
    ]);
  });

  it("serves a fresh memory with its version as ETag, private no-cache, and 304 for If-None-Match", async () => {
    const { userId, ids } = await subjectWithItems();
    const versionId = await seedMemory(
      userId,
      [statement("Work", "Leads payments", ids[0]!), statement("People", "Works with Fox", ids[1]!, ids[0]!)],
      { generatedAt: hoursAgo(1) },
    );

    const res = await get(userId);
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).toBe(`"${versionId}"`);
    expect(res.headers.get("Cache-Control")).toBe("private, no-cache");
    const body = (await res.json()) as MemoryBody;
    expect(body).toMatchObject({ version: versionId, stale: false });
    expect(body.memory).toBe("## Work\n- Leads payments [1]\n\n## People\n- Works with Fox [2][1]");
    expect(body.citations.map((c) => c.id)).toEqual([ids[0], ids[1]]);

    const again = await get(userId, "/memory", { "If-None-Match": `W/"other", "${versionId}"` });
    expect(again.status).toBe(304);
    expect(again.headers.get("ETag")).toBe(`"${versionId}"`);
    expect(await again.text()).toBe("");

    const changed = await get(userId, "/memory", { "If-None-Match": '"something-else"' });
    expect(changed.status).toBe(200);
  });

  it("returns statements with their citations for ?format=json", async () => {
    const { userId, ids } = await subjectWithItems();
    await seedMemory(userId, [statement("Work", "Leads payments", ids[1]!)], { generatedAt: hoursAgo(1) });
    const res = await get(userId, "/memory?format=json");
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      statements: unknown[];
      memory?: string;
      version: string;
      generatedAt: string;
    };
    expect(body.memory).toBeUndefined();
    expect(body.statements).toEqual([
      {
        // Written without an id (as before statements had one): derived from its version and position.
        id: `${body.version}:0`,
        section: "Work",
        text: "Leads payments",
        citations: [
          {
            id: ids[1],
            kind: "email",
            title: "Payments migration 1",
            occurredAt: "2026-03-01T10:00:00.000Z",
          },
        ],
        since: "2026-03-01T10:00:00.000Z",
        firstStated: body.generatedAt,
        // Written without people (as before statements carried them).
        people: [],
      },
    ]);
    expect((await get(userId, "/memory?format=xml")).status).toBe(400);
  });

  it("answers a stale memory at once with stale: true and pokes the agent without waiting", async () => {
    const generator = new FakeGenerator();
    const { userId, ids, stub } = await subjectWithItems(generator);
    await seedMemory(userId, [statement("Work", "Leads payments", ids[0]!)], {
      generatedAt: hoursAgo(30),
      materialChangedAt: hoursAgo(2),
    });
    generator.push({ kind: "accept", statements: [statement("Work", "Now leads billing", ids[1]!)] });

    const res = await fetchSettled(userId, "GET", "/memory");
    expect(res.status).toBe(200);
    expect(((await res.json()) as MemoryBody).stale).toBe(true);
    expect(generator.requests).toHaveLength(0);
    expect((await stub.status()).phase).toBe("scheduled");

    await runAlarm(userId);
    expect(generator.requests[0]?.previous?.markdown).toBe("## Work\n- Leads payments [1]");
    const fresh = (await (await get(userId)).json()) as MemoryBody;
    expect(fresh.memory).toBe("## Work\n- Now leads billing [1]");
  });

  it("confirms a stale memory with nothing new without calling the generator", async () => {
    const generator = new FakeGenerator();
    const { userId, ids } = await subjectWithItems(generator);
    await seedMemory(userId, [statement("Work", "Leads payments", ids[0]!)], {
      generatedAt: hoursAgo(30),
      materialChangedAt: hoursAgo(40),
    });

    expect(((await (await fetchSettled(userId, "GET", "/memory")).json()) as MemoryBody).stale).toBe(true);
    await runAlarm(userId);
    expect(generator.requests).toHaveLength(0);
    expect(((await (await get(userId)).json()) as MemoryBody).stale).toBe(false);
    expect((await services().memoryReader.runs(userId, { limit: 10 })).entries).toHaveLength(1);
  });

  it("holds a ?wait request until the first memory is ready", async () => {
    const generator = new FakeGenerator();
    const { userId, ids } = await subjectWithItems(generator);
    generator.push({ kind: "accept", statements: [statement("Work", "Leads payments", ids[0]!)] });

    const pending = fetchSettled(userId, "GET", "/memory?wait=10");
    // The request polls the database; the run happens when the test runs the alarm (the first poll may
    // not have poked yet, so run it until it has).
    for (let i = 0; i < 50 && generator.requests.length === 0; i++) await runAlarm(userId);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(((await res.json()) as MemoryBody).memory).toBe("## Work\n- Leads payments [1]");
  });

  it("gives up a ?wait after N seconds with 202, and refuses N over 30", async () => {
    const { userId } = await subjectWithItems();
    const started = Date.now();
    const res = await fetchSettled(userId, "GET", "/memory?wait=1");
    expect(res.status).toBe(202);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect((await get(userId, "/memory?wait=31")).status).toBe(400);
    expect((await get(userId, "/memory?wait=abc")).status).toBe(400);
  });

  it("answers 503 llm_not_configured once the agent found no generator, and the ledger says why", async () => {
    const { userId } = await subjectWithItems(null);
    expect((await fetchSettled(userId, "GET", "/memory")).status).toBe(202);
    await runAlarm(userId);

    const res = await get(userId);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string } };
    expect(body.error.code).toBe("llm_not_configured");
    const runs = (await services().memoryReader.runs(userId, { limit: 10 })).entries;
    expect(runs).toMatchObject([{ status: "failed", errorCode: "llm_not_configured", trigger: "read" }]);
  });

  it("answers 503 generation_failing at once after a rejected run, with the reason in words, the attempt and the next attempt", async () => {
    const generator = new FakeGenerator({
      kind: "reject",
      reason: "checks failed: the memory has no statement",
    });
    const { userId, ids, stub, clock } = await subjectWithItems(generator);
    expect((await fetchSettled(userId, "GET", "/memory")).status).toBe(202);
    await runAlarm(userId);
    const agent = await stub.status();
    expect(agent).toMatchObject({ phase: "backoff", attempts: 1 });

    const res = await get(userId);
    expect(res.status).toBe(503);
    const body = (await res.json()) as FailingBody;
    expect(body.error).toMatchObject({
      code: "generation_failing",
      details: {
        lastErrorCode: "judge_rejected",
        reason: "checks failed: the memory has no statement",
        attempt: 1,
        nextAttemptAt: agent.nextRunAt,
      },
    });
    expect(body.error.message).toBe(
      `Attempt 1 to generate this memory was rejected: checks failed: the memory has no statement. The next attempt is at ${agent.nextRunAt}; adding material or dismissing a statement may help.`,
    );
    const retryAfter = Number(res.headers.get("Retry-After"));
    const untilNext = (Date.parse(agent.nextRunAt ?? "") - Date.now()) / 1000;
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(untilNext));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(untilNext) + 2);

    // The next attempt, when its time comes, makes the memory.
    generator.push({ kind: "accept", statements: [statement("Work", "Leads payments", ids[0]!)] });
    clock.set(agent.nextRunAt ?? "");
    await runAlarm(userId);
    expect((await get(userId)).status).toBe(200);
  });

  it("ends a ?wait as soon as the run is rejected, with the 503 and its reason", async () => {
    const generator = new FakeGenerator({ kind: "reject", reason: "statement 0 is unsupported" });
    const { userId } = await subjectWithItems(generator);
    const pending = fetchSettled(userId, "GET", "/memory?wait=20");
    for (let i = 0; i < 50 && generator.requests.length === 0; i++) await runAlarm(userId);
    const rejectedAt = Date.now();
    const res = await pending;
    expect(res.status).toBe(503);
    expect(Date.now() - rejectedAt).toBeLessThan(2000);
    expect(((await res.json()) as FailingBody).error.details).toMatchObject({
      lastErrorCode: "judge_rejected",
      reason: "statement 0 is unsupported",
      attempt: 1,
    });
  });

  it("says which error ended the last attempt, and that none is left, once the agent gave up", async () => {
    const { userId } = await subjectWithItems(
      new FakeGenerator({ kind: "fail", code: "llm_auth", retryable: false }),
    );
    expect((await fetchSettled(userId, "GET", "/memory")).status).toBe(202);
    await runAlarm(userId);

    const res = await get(userId);
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBeNull();
    const body = (await res.json()) as FailingBody;
    expect(body.error.code).toBe("generation_failing");
    expect(body.error.details).toMatchObject({ lastErrorCode: "llm_auth", attempt: 1, nextAttemptAt: null });
    expect(body.error.message).toMatch(
      /^Attempt 1 to generate this memory failed: fake llm_auth\. No attempt is left; /,
    );
  });

  it("needs a token with memory:read", async () => {
    const { userId } = await subjectWithItems();
    expect((await exports.default.fetch("http://local/memory")).status).toBe(401);
    const res = await exports.default.fetch("http://local/memory", {
      headers: await bearer(userId, ["items:write"]),
    });
    expect(res.status).toBe(403);
  });
});
