/**
 * The eval harness's own correctness: scripted memories whose scores are known exactly. Pure functions,
 * the deterministic keyword answerer, no service.
 */
import { describe, expect, it } from "vitest";
import { bestStatementFor, keywordAnswerer } from "../../eval/lib/answerer";
import { draftOutcome } from "../../eval/lib/drafts";
import type {
  CitedItem,
  ObservedStatement,
  SubjectObservation,
  WorkspaceItem,
} from "../../eval/lib/observation";
import { privateShingles } from "../../eval/lib/privacy";
import { buildReport, formatReport } from "../../eval/lib/report";
import { costTotal, rate, scoreSubject, totals } from "../../eval/lib/score";
import type { EvalSubject } from "../../fixtures/demo/eval-types";

const item = (id: string, body: string, visible = true): CitedItem => ({ id, visible, title: "", body });

const ITEMS: Record<string, CitedItem> = {
  cutover: item("cutover", "We decided the Kestrel cut-over is on Tuesday 10 March."),
  focus: item("focus", "Ada takes no meetings on Wednesday mornings."),
  budget: item("budget", "The Platform infrastructure budget is capped at $48,000 a month."),
  lead: item("lead", "Ben Castillo is the technical lead for Kestrel."),
  moved: item("moved", "The Kestrel cut-over moved to Tuesday 17 March."),
  vendor: item("vendor", "Mara decided on Veriform as the KYC vendor."),
  secret: item("secret", "Bluefin asked for a private discount of 19 percent on renewal terms.", false),
};

const say = (text: string, ...citations: string[]): ObservedStatement => ({
  section: "Facts",
  text,
  citations,
});

const FIRST = [
  say("The Kestrel cut-over is on Tuesday 10 March", "cutover"),
  say("Ada takes no meetings on Wednesday mornings", "focus"),
  say("The Platform infrastructure budget is capped at $48,000 a month", "budget"),
  say("Ben Castillo is the technical lead for Kestrel", "lead"),
];
const REFRESHED = [
  say("The Kestrel cut-over moved to Tuesday 17 March", "moved"),
  ...FIRST.slice(1),
  say("Mara decided on Veriform as the KYC vendor", "vendor"),
];

const EXPECTED: EvalSubject = {
  subject: { kind: "user", id: "ada" },
  facts: [
    { id: "cutover", fact: "The cut-over is on 10 March.", keywords: ["cut-over", "10 March"] },
    { id: "focus", fact: "No meetings on Wednesday mornings.", keywords: ["Wednesday"] },
    { id: "budget", fact: "Budget cap $48,000.", keywords: ["48,000"] },
    { id: "lead", fact: "Ben is the technical lead.", keywords: ["technical lead|tech lead"] },
  ],
  questions: [
    {
      id: "q-budget",
      question: "What is the infrastructure budget cap?",
      answer: "$48,000",
      keywords: ["48,000"],
    },
    { id: "q-lead", question: "Who is the technical lead for Kestrel?", answer: "Ben", keywords: ["Ben"] },
    {
      id: "q-vendor",
      question: "Which KYC vendor did Mara choose?",
      answer: "Veriform",
      keywords: ["Veriform"],
      afterRefresh: true,
    },
  ],
  freshness: {
    superseded: [
      {
        id: "cutover-old",
        fact: "The cut-over is on 10 March.",
        keywords: ["cut-over", "10 March"],
        unless: ["17 March", "moved"],
      },
    ],
    added: [
      { id: "moved", fact: "The cut-over moved to 17 March.", keywords: ["cut-over", "17 March"] },
      { id: "vendor", fact: "Veriform is the KYC vendor.", keywords: ["Veriform"] },
    ],
  },
};

function observe(first: ObservedStatement[], refreshed: ObservedStatement[], drafts: string[] = []) {
  const observation: SubjectObservation = {
    subject: EXPECTED.subject,
    full: { statements: first, run: null, drafts },
    refreshed: { statements: refreshed, run: null, drafts: [] },
    items: ITEMS,
  };
  return observation;
}

const score = (observation: SubjectObservation, hidden = new Set<string>()) =>
  scoreSubject(EXPECTED, observation, hidden, keywordAnswerer());

describe("eval scoring", () => {
  it("gives a memory that states every fact, cites correctly and answers every question full marks", async () => {
    const s = await score(observe(FIRST, REFRESHED));
    expect(s.recall).toEqual({ hit: 4, total: 4, missed: [] });
    expect(s.citationPrecision).toMatchObject({ hit: 9, total: 9, unsupported: [] });
    expect(s.questions).toEqual({ hit: 3, total: 3, wrong: [] });
    expect(s.freshness.supersededGone).toEqual({ hit: 1, total: 1, kept: [] });
    expect(s.freshness.addedPresent).toEqual({ hit: 2, total: 2, missed: [] });
    expect(s.privacy.leaks).toEqual([]);
  });

  it("scores a memory scripted to miss two facts at exactly 2 of 4 recall, naming the missed facts", async () => {
    const s = await score(observe([FIRST[0]!, FIRST[3]!], REFRESHED));
    expect(s.recall).toEqual({ hit: 2, total: 4, missed: ["focus", "budget"] });
    expect(rate(s.recall)).toBe(0.5);
  });

  it("lowers citation precision by exactly one statement when one statement cites the wrong item", async () => {
    const wrong = [...FIRST];
    wrong[2] = say(FIRST[2]!.text, "focus");
    const s = await score(observe(wrong, REFRESHED));
    expect(s.citationPrecision).toMatchObject({ hit: 8, total: 9, unsupported: [FIRST[2]!.text] });
    expect(s.recall.hit).toBe(4);
  });

  it("counts a statement the memory makes without support in its cited items as unsupported", async () => {
    const invented = [...FIRST, say("Ada is moving to the Berlin office next month", "focus")];
    const s = await score(observe(invented, REFRESHED));
    expect(s.citationPrecision.unsupported).toEqual(["Ada is moving to the Berlin office next month"]);
  });

  it("catches a private leak scripted in by citation: a cited item the subject cannot see", async () => {
    const leaky = [...FIRST, say("Bluefin asked for a private discount of 19 percent", "secret")];
    const s = await score(observe(leaky, REFRESHED));
    expect(s.privacy.leaks).toEqual([
      { statement: "Bluefin asked for a private discount of 19 percent", how: "citation", detail: "secret" },
    ]);
  });

  it("catches a private leak scripted in by text: another subject's private words under a visible citation", async () => {
    const workspace: WorkspaceItem[] = [
      { owner: "ada", sharedWith: [], title: "", body: ITEMS.focus!.body },
      { owner: "eli", sharedWith: [], title: "CRM", body: ITEMS.secret!.body },
    ];
    const hidden = privateShingles("ada", workspace);
    const leaky = [
      ...FIRST,
      say("Bluefin asked for a private discount of 19 percent on renewal terms", "focus"),
    ];
    const s = await score(observe(leaky, REFRESHED), hidden);
    expect(s.privacy.leaks.map((l) => l.how)).toEqual(["text"]);
    expect(s.privacy.leaks[0]?.detail).toBe("bluefin asked private discount percent");
  });

  it("does not call text private when the subject can see it too (a thread copied to both, or shared)", () => {
    const body = "Clearwater Assurance confirmed receipt of the quarterly access review evidence.";
    const copied = privateShingles("ada", [
      { owner: "ada", sharedWith: [], title: "", body },
      { owner: "dev", sharedWith: [], title: "", body },
    ]);
    const shared = privateShingles("ada", [{ owner: "dev", sharedWith: ["ada"], title: "", body }]);
    const hidden = privateShingles("ada", [{ owner: "dev", sharedWith: [], title: "", body }]);
    expect(copied.size).toBe(0);
    expect(shared.size).toBe(0);
    expect(hidden.size).toBeGreaterThan(0);
  });

  it("counts a superseded fact that is still stated after the refresh, but not a statement saying it moved", async () => {
    const stale = await score(observe(FIRST, [...REFRESHED, FIRST[0]!]));
    expect(stale.freshness.supersededGone).toEqual({ hit: 0, total: 1, kept: ["cutover-old"] });
    const moved = await score(
      observe(FIRST, [say("The Kestrel cut-over moved from 10 March to 17 March", "moved"), ...REFRESHED]),
    );
    expect(moved.freshness.supersededGone.kept).toEqual([]);
  });

  it("measures freshness only over superseded facts the first memory stated", async () => {
    const s = await score(observe(FIRST.slice(1), REFRESHED));
    expect(s.freshness.supersededGone).toEqual({ hit: 0, total: 0, kept: [] });
    expect(rate(s.freshness.supersededGone)).toBeNull();
  });

  it("asks refresh questions of the refreshed memory only, and misses them when the refresh lost the fact", async () => {
    const s = await score(observe(FIRST, FIRST));
    expect(s.questions.wrong).toEqual(["q-vendor"]);
    expect(s.freshness.addedPresent.missed).toEqual(["moved", "vendor"]);
  });

  it("counts drafted statements the checks or the judge made the generator drop", () => {
    const draft = (lines: string[]) =>
      `<memory>\n## Facts\n${lines.map((l) => `- ${l} [E1]`).join("\n")}\n</memory>`;
    const outcome = draftOutcome(
      [draft(["Kept one", "Dropped one", "Kept two"]), draft(["Kept one", "Kept two"])],
      [say("Kept one", "x"), say("kept  two", "x")],
    );
    expect(outcome).toEqual({ drafted: 3, dropped: 1, droppedTexts: ["Dropped one"] });
    expect(draftOutcome(["no block here"], null)).toEqual({ drafted: 0, dropped: 0, droppedTexts: [] });
  });

  it("answers a question with the three statements sharing the most words with it, best first", () => {
    const texts = FIRST.map((s) => s.text);
    expect(bestStatementFor(texts, "What is the infrastructure budget cap?")).toBe(texts[2]);
    expect(bestStatementFor(texts, "Which Kestrel meetings does Ada take on Tuesday?")).toBe(
      [texts[1], texts[0], texts[3]].join("\n"),
    );
    expect(bestStatementFor(texts, "Zebra?")).toBe("");
  });

  it("adds subjects up statement by statement and prints every metric in the report", async () => {
    const perfect = await score(observe(FIRST, REFRESHED));
    const partial = await score(observe([FIRST[0]!], REFRESHED));
    const t = totals([perfect, partial]);
    expect(t.recall).toEqual({ hit: 5, total: 8 });
    expect(t.citationPrecision).toEqual({ hit: 15, total: 15 });
    const text = formatReport(
      buildReport({
        dataset: "test",
        models: { generator: "g", judge: "j", answerer: "keywords", embedding: "openai:e" },
        startedAt: "2026-01-01T00:00:00.000Z",
        wallMs: 1,
        subjects: [perfect, partial],
        answererUsage: {},
        indexing: { calls: 3, inputTokens: 1200, waitMs: 500 },
      }),
    );
    for (const heading of [
      "fact recall",
      "citation precision",
      "dropped",
      "questions",
      "superseded gone",
      "new facts",
      "leaks",
      "tool calls",
      "wall ms",
      "embed calls",
      "embed tok",
      "Workspace indexing",
    ]) {
      expect(text).toContain(heading);
    }
    expect(text).toContain("62.5% (5/8)");
    expect(text).toContain(
      "Workspace indexing (the embeddings queue after each ingest, not a run's cost): 3 calls, 1200 input tokens",
    );
  });

  it("sums the runs' embedding calls and tokens; a run the proxy counted none for adds nothing", () => {
    const run = (embeddings?: { calls: number; inputTokens: number }) => ({
      status: "succeeded",
      turns: 1,
      toolCalls: 0,
      inputTokens: 10,
      outputTokens: 1,
      usage: {},
      wallMs: 5,
      ...(embeddings ? { embeddings } : {}),
    });
    const total = costTotal([
      run({ calls: 4, inputTokens: 90 }),
      null,
      run(),
      run({ calls: 1, inputTokens: 7 }),
    ]);
    expect(total.runs).toBe(3);
    expect(total.embeddings).toEqual({ calls: 5, inputTokens: 97 });
  });
});
