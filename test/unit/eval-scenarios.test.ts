/**
 * The eval's freshness scenarios as pure functions: which statements get a contradicting reply or
 * @-mention, when one counts as still stated, which statement is dismissed and how its item is "changed",
 * and how the scores add up. No service.
 */
import { describe, expect, it } from "vitest";
import {
  contradictionsFor,
  dismissalCandidate,
  figureOf,
  restatedInDrafts,
  type ServedItem,
  stillStated,
  touched,
} from "../../eval/lib/scenarios";
import { type SubjectScores, scoreScenarios, totals } from "../../eval/lib/score";

const served = (id: string, ownerId: string, body: string, more: Partial<ServedItem> = {}): ServedItem => ({
  id,
  ownerId,
  source: "gmail",
  externalId: `x-${id}`,
  kind: "email",
  title: "T",
  body,
  author: "Ben",
  participants: ["Ada"],
  occurredAt: "2026-03-01T10:00:00.000Z",
  url: null,
  metadata: { threadId: "t" },
  sharedWith: [],
  links: [],
  ...more,
});

const ITEMS = {
  a: served("a", "ada", "The Kestrel cut-over is on 15 December."),
  b: served("b", "ada", "Dual-write stays on for 14 days."),
  c: served("c", "ben", "The beta has 15 design partners."),
  d: served("d", "ada", "Runs the standup."),
  e: served("e", "ada", "Heron moves to 12 December."),
};
const say = (text: string, ...citations: string[]) => ({ section: "S", text, citations, id: `id-${text}` });

describe("contradictions through links", () => {
  it("replies to, then mentions, an item the subject owns, with the statement's first figure moved by seven", () => {
    const statements = [
      say("The Kestrel cut-over is on 15 December", "a"),
      say("The beta has 15 design partners", "c"), // Ben's item: Ada cannot reply to it
      say("Runs the standup", "d"), // nothing dated or counted
      say("Dual-write stays on for 14 days", "b"),
      say("Heron moves to 12 December", "e"),
      say("Another one on 3 March", "a"),
    ];
    const found = contradictionsFor("ada", statements, ITEMS, new Date("2026-12-01T00:00:00Z"));
    expect(found.map((c) => [c.statement.text, c.via, c.old, c.next])).toEqual([
      ["The Kestrel cut-over is on 15 December", "reply", "15 December", "22 December"],
      ["Dual-write stays on for 14 days", "mention", "14 days", "21 days"],
      ["Heron moves to 12 December", "reply", "12 December", "19 December"],
    ]);
    expect(found[0]!.item).toMatchObject({
      source: "gmail",
      externalId: "eval-correction-1",
      body: "Correction: The Kestrel cut-over is on 22 December.",
      links: [{ source: "gmail", externalId: "x-a", kind: "reply" }],
    });
    expect(found[1]!.item.body).toBe("Correction to @[gmail:x-b]: Dual-write stays on for 21 days.");
    expect(found[1]!.item.links).toBeUndefined();
    expect(figureOf("no figures here")).toBeNull();
  });

  it("counts a statement as still stated when one keeps the old figure and most of its words, not the new one", () => {
    const [c] = contradictionsFor(
      "ada",
      [say("The Kestrel cut-over is on 15 December", "a")],
      ITEMS,
      new Date(),
    );
    expect(stillStated([say("The Kestrel cut-over is on 15 December")], c!)).toBe(true);
    expect(stillStated([say("Kestrel cut-over: 15 December")], c!)).toBe(true);
    expect(stillStated([say("Ben confirmed the Kestrel dry-run for 15 December")], c!)).toBe(false);
    expect(stillStated([say("The Kestrel cut-over moved from 15 December to 22 December")], c!)).toBe(false);
    expect(stillStated([say("The merchant notice goes out on 15 December")], c!)).toBe(false);
  });
});

describe("the dismissal scenario", () => {
  it("picks a statement quoting an owned item's opening text, and re-ingests that item changed but with the same words", () => {
    const statements = [say("The beta has 15 design partners", "c"), say("Runs the standup", "d")];
    const pick = dismissalCandidate("ada", statements, ITEMS);
    expect(pick?.statement.text).toBe("Runs the standup");
    expect(dismissalCandidate("ada", statements, ITEMS, new Set(["Runs the standup"]))).toBeNull();
    const withLinks = served("f", "ada", "Body.", {
      links: [
        { direction: "outgoing", kind: "reply", item: { source: "gmail", externalId: "parent" } },
        { direction: "incoming", kind: "mention", item: { source: "slack", externalId: "child" } },
      ],
      sharedWith: ["ben"],
    });
    expect(touched(withLinks, "now")).toEqual({
      source: "gmail",
      externalId: "x-f",
      kind: "email",
      title: "T",
      body: "Body.",
      author: "Ben",
      participants: ["Ada"],
      occurredAt: "2026-03-01T10:00:00.000Z",
      metadata: { threadId: "t", evalTouched: "now" },
      sharedWith: ["ben"],
      links: [{ source: "gmail", externalId: "parent", kind: "reply" }],
    });
    expect(
      restatedInDrafts(["<memory>\n## S\n- Runs  the standup [N1]\n</memory>"], "Runs the standup"),
    ).toBe(true);
    expect(restatedInDrafts(["<memory>\n- Other [N1]\n</memory>"], "Runs the standup")).toBe(false);
  });

  it("scores both scenarios per subject and in total; null when they were not run", () => {
    const a = scoreScenarios({
      contradicted: [
        { text: "x", via: "reply", stillStated: false },
        { text: "y", via: "mention", stillStated: true },
      ],
      contradictionRun: null,
      dismissed: { text: "z", absentAfter: true, restatedInDrafts: true },
      dismissalRun: null,
    });
    expect(a).toMatchObject({
      linkedGone: { hit: 1, total: 2, kept: ["y"] },
      dismissedGone: { hit: 1, total: 1 },
      dismissedRestated: 1,
    });
    expect(scoreScenarios(undefined)).toBeNull();
    const blank: SubjectScores = {
      subject: { kind: "user", id: "u" },
      recall: { hit: 0, total: 0, missed: [] },
      citationPrecision: { hit: 0, total: 0, unsupported: [] },
      dropped: { hit: 0, total: 0 },
      questions: { hit: 0, total: 0, wrong: [] },
      freshness: {
        supersededGone: { hit: 0, total: 0, kept: [] },
        addedPresent: { hit: 0, total: 0, missed: [] },
      },
      privacy: { leaks: [] },
      cost: { full: null, incremental: null },
      scenarios: null,
    };
    const t = totals([{ ...blank, scenarios: a }, blank]);
    expect(t).toMatchObject({
      linkedGone: { hit: 1, total: 2 },
      dismissedGone: { hit: 1, total: 1 },
      dismissedRestated: 1,
    });
  });
});
