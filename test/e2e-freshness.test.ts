/**
 * Freshness through the worker with the real wiring (MemoryAgent alarm -> real generator -> the SDKs -> the
 * fake LLM): the first memory is scripted to state a date; the refresh is the fake's reference policy,
 * which copies every previous bullet (it never drops a line by itself), and its judge, which calls a
 * statement superseded when a newer item shown with it gives another date. What removes the old date is
 * the service showing the carried statement to the judge next to the newer item that touches it: through a
 * reply link, through an @-mention, and (the control) not at all when nothing links the two: this worker
 * has no embedder (with one, the same item is related by its words: test/hybrid/freshness-by-meaning.test.ts).
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { moved, refreshAfter, subjectWithFirstMemory } from "./support/freshness";
import { warmUpWorker } from "./support/items";
import { clearAlarm } from "./support/memory-agent";

const used: string[] = [];
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

describe("a refresh after a newer item moves a date", () => {
  it("no longer serves the old date when the newer item is a reply to the one the statement cites", async () => {
    const s = await subjectWithFirstMemory(used);
    const r = await refreshAfter(
      s,
      moved({ links: [{ source: "gmail", externalId: "kestrel-date", kind: "reply" }] }),
    );

    // The copying generator kept the old line; the service sent it to the judge next to the reply.
    expect(r.generator.at(-1)?.neutral?.system).toContain("- The Kestrel cut-over is on 3 March [E1]");
    const judged = JSON.stringify(r.judge.at(-1)?.neutral?.messages ?? []);
    expect(judged).toMatch(/cites=\\"E1\\" related=\\"E2\\">The Kestrel cut-over is on 3 March</);
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
    expect(refresh).toMatchObject({ status: "succeeded", trigger: expect.any(String) });
    expect(refresh.superseded).toEqual([
      {
        statementId: expect.any(String),
        section: "Commitments and deadlines",
        text: "The Kestrel cut-over is on 3 March",
        byItemId: r.movedId,
        handled: "dropped",
      },
    ]);
    expect(refresh.salvaged?.statements).toEqual([
      expect.objectContaining({
        text: "The Kestrel cut-over is on 3 March",
        cause: "superseded",
        supersededBy: r.movedId,
      }),
    ]);
  });

  it("no longer serves the old date when the newer item @-mentions the one the statement cites", async () => {
    const s = await subjectWithFirstMemory(used);
    const r = await refreshAfter(
      s,
      moved({ body: "Update on @[gmail:kestrel-date]: the Kestrel cut-over moved to 10 March." }),
    );
    expect(r.texts.join("\n")).not.toContain("3 March");
    expect(r.runs.find((run) => run.superseded !== null)?.superseded).toEqual([
      expect.objectContaining({ text: "The Kestrel cut-over is on 3 March", byItemId: r.movedId }),
    ]);
  });

  it("keeps serving the old date when nothing relates the newer item to it (the carried line skips the judge)", async () => {
    const s = await subjectWithFirstMemory(used);
    const r = await refreshAfter(s, moved({}));
    expect(r.texts).toContain("The Kestrel cut-over is on 3 March");
    expect(r.runs.every((run) => run.superseded === null)).toBe(true);
    const judged = JSON.stringify(r.judge.map((j) => j.neutral?.messages ?? []));
    expect(judged).not.toContain("is on 3 March");
  });
});
