import { describe, expect, it } from "vitest";
import { checkDraft, DRAFT_BOUNDS } from "../../src/agent/checks";
import { RefTable } from "../../src/agent/refs";
import { agentWorld } from "../support/fakes/agent-world";

async function setup() {
  const world = await agentWorld();
  const refs = new RefTable();
  const plan = refs.register({ id: world.ids.plan, kind: "email" });
  const standup = refs.register({ id: world.ids.standup, kind: "message" });
  const charter = refs.register({ id: world.ids.charter, kind: "doc" });
  const check = (text: string) => checkDraft(text, { subjectKey: world.alice, items: world.store, refs });
  return { ...world, refs, check, plan, standup, charter };
}

const failuresOf = async (result: ReturnType<Awaited<ReturnType<typeof setup>>["check"]>) => {
  const r = await result;
  if (r.ok) throw new Error("expected the checks to fail");
  return r;
};

describe("deterministic checks", () => {
  it("pass a well-formed draft and map every ref to its item id", async () => {
    const { check, ids } = await setup();
    const result = await check(
      "<memory>\n## Role and team\n- Engineering manager of the Payments team [D1]\n## Current projects\n- Leads the payments migration [E1][M1]\n</memory>",
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.statements.map((s) => s.itemIds)).toEqual([[ids.charter], [ids.plan, ids.standup]]);
  });

  it("flag a missing block as missing, not as a bad draft", async () => {
    const { check } = await setup();
    const result = await failuresOf(check("Alice leads payments [E1]."));
    expect(result.missingBlock).toBe(true);
    expect(result.failures).toEqual(["the final answer has no <memory>...</memory> block"]);
  });

  it("reject narration outside the tags", async () => {
    const { check } = await setup();
    const result = await failuresOf(check("Sure! Here it is:\n<memory>\n- Leads payments [E1]\n</memory>"));
    expect(result.missingBlock).toBe(false);
    expect(result.failures[0]).toMatch(/^text outside the <memory> block \("Sure! Here it is:"\)/);
  });

  it("reject a statement without a citation and name it", async () => {
    const { check } = await setup();
    const result = await failuresOf(
      check("<memory>\n- Leads payments [E1]\n- Is a great manager\n</memory>"),
    );
    expect(result.failures).toEqual(['statement 1 ("Is a great manager") cites nothing']);
    expect(result.offending).toEqual([1]);
  });

  it("reject a ref that no tool result of this run returned", async () => {
    const { check } = await setup();
    const result = await failuresOf(check("<memory>\n- Leads payments [E1][E7]\n</memory>"));
    expect(result.failures).toEqual(["statement 0 cites E7, which no tool result of this run returned"]);
    expect(result.offending).toEqual([0]);
  });

  it("reject a cited item the subject can no longer see, re-checked through the store", async () => {
    const { check, store, bob } = await setup();
    await store.upsert(bob, [
      {
        source: "gdrive",
        externalId: "charter",
        kind: "doc",
        title: "Payments team charter",
        body: "Alice Smith is the engineering manager of the Payments team.",
        occurredAt: new Date("2025-04-01T12:00:00Z"),
        sharedWith: [],
      },
    ]);
    const result = await failuresOf(
      check("<memory>\n- Leads payments [E1]\n- Manages the team [D1]\n</memory>"),
    );
    expect(result.failures).toEqual(["statement 1 cites D1, an item the subject cannot see"]);
    expect(result.offending).toEqual([1]);
  });

  it("reject an empty memory", async () => {
    const { check } = await setup();
    const result = await failuresOf(check("<memory>\n## Role and team\n</memory>"));
    expect(result.failures).toEqual(["the memory has no statement"]);
  });

  it("reject too many statements, too long a statement, too many citations and too long a memory", async () => {
    const { check } = await setup();
    const many = Array.from({ length: DRAFT_BOUNDS.maxStatements + 1 }, (_, i) => `- Fact ${i} [E1]`).join(
      "\n",
    );
    expect((await failuresOf(check(`<memory>\n${many}\n</memory>`))).failures).toEqual([
      `the memory has ${DRAFT_BOUNDS.maxStatements + 1} statements; at most ${DRAFT_BOUNDS.maxStatements}`,
    ]);

    const long = `- ${"x".repeat(DRAFT_BOUNDS.maxStatementChars + 1)} [E1]`;
    const tooLong = await failuresOf(check(`<memory>\n${long}\n</memory>`));
    expect(tooLong.failures).toEqual([
      `statement 0 is 401 characters; at most ${DRAFT_BOUNDS.maxStatementChars}`,
    ]);

    const cites = Array.from({ length: 11 }, (_, i) => `[E${i + 1}]`).join("");
    const tooManyCites = await failuresOf(check(`<memory>\n- Fact ${cites}\n</memory>`));
    expect(tooManyCites.failures[0]).toBe("statement 0 cites 11 items; at most 10");

    const big = Array.from({ length: 60 }, (_, i) => `- ${String(i).padEnd(390, "y")} [E1]`).join("\n");
    const tooBig = await failuresOf(check(`<memory>\n${big}\n</memory>`));
    expect(tooBig.failures[0]).toMatch(/^the memory is \d+ characters; at most 20000$/);
  });

  it("report parse problems as failures", async () => {
    const { check } = await setup();
    const result = await failuresOf(
      check("<memory>\n## Role\nShe leads payments.\n- Leads payments [E1]\n</memory>"),
    );
    expect(result.failures).toEqual([
      'line 3 is neither a "## Section" heading nor a "- statement [ref]" bullet',
    ]);
  });
});

describe("statements in plain text", () => {
  it.each([
    [
      "ref : E1 , kind : email , title : <untrusted>Note 6</untrusted>",
      "statement 1 carries the prompt's markup (<untrusted>); a statement is plain text",
    ],
    [
      "Title ‹untrusted>Plan",
      "statement 1 carries the prompt's markup (‹untrusted>); a statement is plain text",
    ],
    [
      'Quoted <item ref="M1" kind="message">standup</item>',
      `statement 1 carries the prompt's markup (<item ref="M1" kind="message">); a statement is plain text`,
    ],
    [
      "Says so in ref: D1",
      `statement 1 copies a tool result's ref field ("ref: D1"); a statement is plain text`,
    ],
    [
      "Leads the migration, see E1 for details",
      "statement 1 names the run's ref E1 in its text; refs go only in the citations at the end",
    ],
    [
      "Wrote about it in M1",
      "statement 1 names the run's ref M1 in its text; refs go only in the citations at the end",
    ],
  ])("drop a statement like %j, saying why", async (text, reason) => {
    const { check } = await setup();
    const result = await failuresOf(check(`<memory>\n- Leads payments [E1]\n- ${text} [E1]\n</memory>`));
    expect(result.structural).toBe(false);
    expect(result.offending).toEqual([1]);
    expect(result.reasons.get(1)).toEqual([reason]);
  });

  it("keep text that only looks like a ref when this run handed out no such ref", async () => {
    const { check } = await setup();
    const result = await check(
      "<memory>\n- Plans the Q3 roadmap and the E7 rollout with the P2 backlog [E1]\n- Runs E2E tests of the m1 and d1 builds [M1]\n</memory>",
    );
    expect(result.ok).toBe(true);
  });
});
