/** The demo's eval dataset is consistent with the demo workspace: every expectation can be met from items. */
import { describe, expect, it } from "vitest";
import { statesFactByKeywords } from "../../eval/lib/answerer";
import { matchesKeywords } from "../../eval/lib/keywords";
import { demoEvalWorkspace, type EvalWorkspace, workspaceMembers } from "../../eval/workspace";
import { demoEvalDataset } from "../../fixtures/demo/eval-dataset";
import { type ApiItem, DEMO_USER_IDS, demoRefreshBatch, demoWorkspace } from "../../fixtures/demo-workspace";

const NOW = new Date("2026-03-02T09:30:00Z");
const dataset = demoEvalDataset(NOW);
const ws = demoWorkspace(NOW);

/** The texts a user can see: their own items and items others shared with them. */
function visibleTexts(userId: string, withRefresh: boolean): string[] {
  const batches: Record<string, ApiItem[]>[] = [ws.itemsByOwner];
  if (withRefresh) {
    batches.push(Object.fromEntries(DEMO_USER_IDS.map((k) => [k, demoRefreshBatch(NOW, k)])));
  }
  return batches.flatMap((byOwner) =>
    Object.entries(byOwner).flatMap(([owner, items]) =>
      items
        .filter((i) => owner === userId || (i.sharedWith ?? []).includes(userId))
        .map((i) => `${i.title ?? ""}\n${i.body}`),
    ),
  );
}

describe("the demo eval dataset", () => {
  it("has every demo user as a subject and at least 40 questions across them", () => {
    expect(dataset.subjects.map((s) => s.subject)).toEqual(DEMO_USER_IDS.map((id) => ({ kind: "user", id })));
    expect(dataset.subjects.flatMap((s) => s.questions).length).toBeGreaterThanOrEqual(40);
  });

  it("names every fact and question uniquely within its subject", () => {
    for (const s of dataset.subjects) {
      const ids = [...s.facts, ...s.questions, ...s.freshness.superseded, ...s.freshness.added].map(
        (x) => x.id,
      );
      expect(new Set(ids).size, s.subject.id).toBe(ids.length);
    }
  });

  it("states each fact in its own words and gives each expected answer the words a correct answer has", () => {
    for (const s of dataset.subjects) {
      for (const f of [...s.facts, ...s.freshness.superseded, ...s.freshness.added]) {
        expect(statesFactByKeywords(f.fact, f), f.id).toBe(true);
      }
      for (const q of s.questions) expect(matchesKeywords(q.answer, q.keywords), q.id).toBe(true);
    }
  });

  it("can be met from the items: every question's and new fact's words occur in one item the subject can see", () => {
    for (const s of dataset.subjects) {
      const before = visibleTexts(s.subject.id, false);
      const after = visibleTexts(s.subject.id, true);
      for (const q of s.questions) {
        const texts = q.afterRefresh ? after : before;
        expect(
          texts.some((t) => matchesKeywords(t, q.keywords)),
          q.id,
        ).toBe(true);
      }
      for (const f of s.facts)
        expect(
          before.some((t) => statesFactByKeywords(t, f)),
          f.id,
        ).toBe(true);
      for (const f of s.freshness.superseded)
        expect(
          before.some((t) => statesFactByKeywords(t, f)),
          f.id,
        ).toBe(true);
      for (const f of s.freshness.added)
        expect(
          after.some((t) => statesFactByKeywords(t, f)),
          f.id,
        ).toBe(true);
    }
  });
});

describe("the eval's workspace members", () => {
  it("are the demo users, who are every owner and every sharee of the demo workspace", () => {
    expect(workspaceMembers(demoEvalWorkspace(NOW))).toEqual([...DEMO_USER_IDS].sort());
  });

  it("include sharees that own nothing, but no team targets", () => {
    const note = (sharedWith: string[]): ApiItem => ({
      source: "notes",
      externalId: sharedWith.join(","),
      kind: "note",
      body: "x",
      occurredAt: "2026-03-01T10:00:00Z",
      sharedWith,
    });
    const ws: EvalWorkspace = {
      dataset: { name: "t", subjects: [] } as unknown as EvalWorkspace["dataset"],
      items: { zoe: [note(["yan", "team:ops"])] },
      refresh: { zoe: [note(["xia"])], wes: [] },
    };
    expect(workspaceMembers(ws)).toEqual(["wes", "xia", "yan", "zoe"]);
  });
});
