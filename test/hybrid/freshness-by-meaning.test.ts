/**
 * Freshness by meaning, through the worker with an embedder (the fake LLM's embeddings through the OpenAI
 * SDK and the real embeddings queue): the newer item moving the date has no thread, link or person in
 * common with the item the carried statement cites, so only its chunks being near the statement relate
 * the two. The fake's embeddings are hashed word features, so for them "near" means sharing words: the
 * move restates "the Kestrel cut-over ... March"; the control says the same thing in other words and is
 * not related. The generator is the fake's reference policy, which copies every previous bullet.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { fakeLlm } from "../support/fake-llm-control";
import { moved, refreshAfter, subjectWithFirstMemory } from "../support/freshness";
import { warmUpWorker } from "../support/items";
import { clearAlarm } from "../support/memory-agent";
import { untilIndexed } from "./support";

const llm = fakeLlm();
const used: string[] = [];
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

/** Ingest's embeddings go through the queue: the refresh waits until they are written. */
const indexed = (userId: string, ids: string[]) => untilIndexed(userId, ids);

const STATEMENT = "The Kestrel cut-over is on 3 March";

/**
 * A fault's match for the embeddings request of the carried statements (the fake matches the model and
 * the inputs, one a line): the statement as an input of its own, not inside an item's chunk.
 */
const STATEMENT_INPUT = `\n${STATEMENT}`;

/** The embeddings requests with the carried statement as an input (every test's: compare counts). */
async function statementEmbeddings() {
  const all = await llm.requests(STATEMENT, { role: "embedding" });
  return all.filter((r) => {
    const input = (r.body as { input?: unknown }).input;
    return Array.isArray(input) && input.includes(STATEMENT);
  });
}

describe("a refresh after an item related only by meaning moves a date", () => {
  it("no longer serves the old date: the item's chunks are near the carried statement", async () => {
    const s = await subjectWithFirstMemory(used, indexed);
    const r = await refreshAfter(s, moved({}), indexed);

    // The copying generator kept the old line; the service sent it, and only it, to the judge.
    expect(r.generator.at(-1)?.neutral?.system).toContain("- The Kestrel cut-over is on 3 March [E1]");
    const judged = JSON.stringify(r.judge.at(-1)?.neutral?.messages ?? []);
    expect(judged).toMatch(/cites=\\"E1\\" related=\\"E2\\">The Kestrel cut-over is on 3 March</);
    expect(judged.match(/related=/g)).toHaveLength(1);
    expect(judged).toContain('newer=\\"true\\"');

    expect(r.texts.join("\n")).not.toContain("3 March");
    expect(r.texts).toContain("Update: the Kestrel cut-over moved to 10 March");
    expect(r.texts).toEqual(
      expect.arrayContaining([
        "Runs the weekly platform standup on Mondays",
        "Reviews every ledger pull request before it merges",
        "Mentors two new engineers on the platform team",
      ]),
    );
    const refresh = r.runs.find((run) => run.superseded !== null)!;
    expect(refresh).toMatchObject({ status: "succeeded" });
    expect(refresh.superseded).toEqual([
      expect.objectContaining({
        text: "The Kestrel cut-over is on 3 March",
        byItemId: r.movedId,
        handled: "dropped",
      }),
    ]);
  });

  it("keeps the old date when the newer item says it in other words (no shared word: not near)", async () => {
    const s = await subjectWithFirstMemory(used, indexed);
    const r = await refreshAfter(
      s,
      moved({ title: "Planning", body: "The migration switch date is now 10 March." }),
      indexed,
    );
    expect(r.texts).toContain("The Kestrel cut-over is on 3 March");
    expect(r.runs.every((run) => run.superseded === null)).toBe(true);
    // The statements were embedded and compared: nothing was near enough.
    expect(await statementEmbeddings()).not.toEqual([]);
    expect(JSON.stringify(r.judge.map((j) => j.neutral?.messages ?? []))).not.toContain("is on 3 March");
  });

  it("still succeeds when the embedder fails during the refresh, without that relation and without a retry", async () => {
    const s = await subjectWithFirstMemory(used, indexed);
    const before = (await statementEmbeddings()).length;
    const fault = await llm.fault(STATEMENT_INPUT, { kind: "server_error" }, { role: "embedding" });
    const r = await refreshAfter(s, moved({}), indexed);
    expect(await fault.state()).toMatchObject({ hits: 1 });
    await fault.remove();
    const asked = (await statementEmbeddings()).slice(before);
    expect(asked.map((a) => a.status)).toEqual([500]);
    expect(r.runs[0]).toMatchObject({ status: "succeeded" });
    expect(r.texts).toContain("The Kestrel cut-over is on 3 March");
    expect(r.runs.every((run) => run.superseded === null)).toBe(true);
  });
});
