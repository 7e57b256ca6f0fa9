/**
 * Redaction reaches the runs ledger: what a run recorded about a statement (superseded, salvaged, the
 * judge's reason, a rejection's message) loses its words when the subject loses the item, in the same
 * request, for the owner's delete and for a sharee who loses the item; the ledger keeps counts and ids.
 * After the owner's delete, no table of the database holds the deleted item's words.
 */
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { createPgRunLedger } from "../src/db/pg-run-ledger";
import { emptyStats } from "../src/domain/generation";
import type { Statement } from "../src/domain/memory";
import { renderMemory } from "../src/domain/memory-render";
import { newUserId } from "./support/auth";
import { call, item } from "./support/items";
import {
  clearAlarm,
  FakeGenerator,
  fetchSettled,
  ingestSettled,
  installAgent,
  testDb,
} from "./support/memory-agent";
import { registerMembers } from "./support/workspaces";

const used: string[] = [];
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

async function user(label: string) {
  const userId = newUserId(label);
  used.push(userId);
  await registerMembers(userId);
  await installAgent(userId, new FakeGenerator());
  return userId;
}

/** Two runs of `subject` quoting `sentence` everywhere the ledger keeps words (one version citing `other`). */
async function recordRunsQuoting(subject: string, sentence: string, other: string) {
  const ledger = createPgRunLedger(testDb());
  const run = (id = crypto.randomUUID()) => ({
    id,
    subjectKey: subject,
    trigger: "manual" as const,
    attempt: 1,
    queuedAt: new Date(),
    startedAt: new Date(),
  });
  const rejected = run();
  await ledger.runStarted(rejected);
  await ledger.runEnded(rejected, {
    status: "rejected",
    finishedAt: new Date(),
    stats: emptyStats(),
    verdict: { accepted: false, reason: `"${sentence}" is not what the item says`, unsupported: [0] },
    outcome: "rejected",
    errorCode: "judge_rejected",
    errorMessage: `the judge rejected "${sentence}"`,
    memoryStatus: "generating",
    nextAttemptAt: null,
  });
  const accepted = run();
  await ledger.runStarted(accepted);
  const statements: Statement[] = [{ section: "Work", text: "Keeps the books", itemIds: [other] }];
  const { markdown, citedIds } = renderMemory(statements);
  const result = await ledger.runAccepted(
    accepted,
    {
      markdown,
      statements,
      citedItemIds: citedIds,
      generatorModel: "seed:generator",
      judgeModel: "seed:judge",
      verdict: { accepted: true, reason: `dropped "${sentence}"; the rest is supported`, unsupported: [] },
      generatedAt: new Date(),
      salvaged: {
        kept: 1,
        dropped: 1,
        statements: [
          {
            section: "Work",
            text: sentence,
            reason: `the judge found it unsupported by its cited items: ${sentence}`,
            cause: "unsupported",
          },
        ],
      },
      superseded: [
        { statementId: "s1", section: "Work", text: sentence, byItemId: other, handled: "dropped" },
      ],
    },
    emptyStats(),
    new Date(),
  );
  expect(result.written).toBe(true);
  return { versionId: result.written ? result.versionId : "" };
}

/** Rows of every table of the database whose text holds `words`, as "table: count". */
async function tablesHolding(words: string): Promise<string[]> {
  const db = testDb();
  const tables = await db.execute<{ name: string }>(
    sql`select quote_ident(table_name) as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE'`,
  );
  expect(tables.rows.length).toBeGreaterThan(10);
  const found: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await db.execute<{ n: number }>(
      sql`select count(*)::int as n from ${sql.raw(name)} t where t::text like ${`%${words}%`}`,
    );
    const n = Number(rows.rows[0]?.n ?? 0);
    if (n > 0) found.push(`${name}: ${n}`);
  }
  return found;
}

const text = async (userId: string, path: string) => {
  const res = await call(userId, "GET", path);
  expect(res.status).toBe(200);
  return res.text();
};

describe("the runs ledger loses a lost item's words", () => {
  it("after the owner's delete, no route, ledger or table holds the deleted item's words; counts and ids stay", async () => {
    const owner = await user("ledger-owner");
    const sentence = `The Zanzibar merger closes on 9 May ${crypto.randomUUID()}`;
    const [secret, other] = await ingestSettled(owner, [
      item({ externalId: "secret", title: "Merger", body: sentence }),
      item({ externalId: "other", body: "The books are kept by the owner." }),
    ]);
    const { versionId } = await recordRunsQuoting(owner, sentence, other!);
    expect(await text(owner, "/memory/runs")).toContain(sentence);
    expect(await tablesHolding(sentence)).not.toEqual([]);

    expect((await fetchSettled(owner, "DELETE", `/items/${secret}`)).status).toBe(204);

    expect(await text(owner, "/memory/runs")).not.toContain(sentence);
    expect(await text(owner, `/memory/versions/${versionId}`)).not.toContain(sentence);
    expect(await text(owner, "/memory/versions")).not.toContain(sentence);
    expect(await tablesHolding(sentence)).toEqual([]);
    const runs = JSON.parse(await text(owner, "/memory/runs")) as {
      runs: { salvaged: { kept: number; dropped: number; statements: { cause?: string }[] } | null }[];
    };
    const salvaged = runs.runs.find((r) => r.salvaged !== null)?.salvaged;
    expect(salvaged).toMatchObject({ kept: 1, dropped: 1, statements: [{ cause: "unsupported" }] });
  });

  it("a sharee who loses the item loses its words from their ledger; the owner, who keeps it, keeps them", async () => {
    const owner = await user("ledger-sharer");
    const reader = await user("ledger-sharee");
    const sentence = `The Tangier office opens in June ${crypto.randomUUID()}`;
    const shared = item({ externalId: "shared", body: sentence, sharedWith: [reader] });
    await ingestSettled(owner, [shared]);
    const [own] = await ingestSettled(reader, [item({ externalId: "own" })]);
    const [owners] = await ingestSettled(owner, [item({ externalId: "owners" })]);
    await recordRunsQuoting(reader, sentence, own!);
    await recordRunsQuoting(owner, sentence, owners!);

    // The owner shares it with nobody any more.
    await ingestSettled(owner, [{ ...shared, sharedWith: [] }]);

    expect(await text(reader, "/memory/runs")).not.toContain(sentence);
    expect(await text(owner, "/memory/runs")).toContain(sentence);
  });
});
