/**
 * The run's write fence in Postgres: an accepted version is refused when its subject dismissed a statement
 * after the run last read the dismissals (RunLedger.runAccepted's dismissalSeq), and the runs row says so.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createPgRunLedger } from "../src/db/pg-run-ledger";
import { emptyStats } from "../src/domain/generation";
import { renderMemory } from "../src/domain/memory-render";
import { newUserId } from "./support/auth";
import { item } from "./support/items";
import { ingestSettled, statement, testDb } from "./support/memory-agent";
import { registerMembers } from "./support/workspaces";

describe("the dismissal fence of an accepted version", () => {
  it("writes a version when nothing was dismissed since the run looked, and refuses one when something was", async () => {
    const subject = newUserId("fence");
    await registerMembers(subject);
    const [itemId] = await ingestSettled(subject, [item({ externalId: "a", body: "Leads payments." })]);
    const ledger = createPgRunLedger(testDb());
    const statements = [statement("Work", "Leads payments", itemId!)];
    const { markdown, citedIds } = renderMemory(statements);
    const accept = async (dismissalSeq: number) => {
      const run = {
        id: crypto.randomUUID(),
        subjectKey: subject,
        trigger: "manual" as const,
        attempt: 1,
        queuedAt: new Date(),
        startedAt: new Date(),
      };
      await ledger.runStarted(run);
      const memory = {
        markdown,
        statements,
        citedItemIds: citedIds,
        generatorModel: "g",
        judgeModel: "j",
        verdict: { accepted: true, reason: "ok", unsupported: [] },
        generatedAt: new Date(),
        salvaged: null,
        dismissalSeq,
      };
      return { run, result: await ledger.runAccepted(run, memory, emptyStats(), new Date()) };
    };

    const before = await ledger.dismissals(subject);
    expect(before).toEqual({ dismissals: [], seq: 0 });
    expect((await accept(before.seq)).result).toMatchObject({ written: true });

    await testDb().execute(sql`
      insert into memory_dismissals (subject_id, statement_id, section, text, cited_item_ids)
      values (${subject}, 's-1', 'Work', 'Leads payments', ${`{${itemId}}`}::uuid[])`);
    const after = await ledger.dismissals(subject);
    expect(after.dismissals).toMatchObject([
      { statementId: "s-1", text: "Leads payments", itemIds: [itemId] },
    ]);
    expect(after.seq).toBeGreaterThan(0);

    const refused = await accept(before.seq);
    expect(refused.result).toEqual({ written: false, reason: "statement_dismissed" });
    const row = await testDb().execute(
      sql`select status, outcome, version_id from memory_runs where id = ${refused.run.id}::uuid`,
    );
    expect(row.rows[0]).toMatchObject({ status: "failed", outcome: "statement_dismissed", version_id: null });
    expect((await accept(after.seq)).result).toMatchObject({ written: true });
  });
});
