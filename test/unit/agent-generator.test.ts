import { describe, expect, it } from "vitest";
import { endUserIdOf } from "../../src/agent/end-user";
import type { PreviousMemory } from "../../src/domain/generation";
import { LlmError, type LlmResponse } from "../../src/domain/llm";
import { renderMemory } from "../../src/domain/memory-render";
import type { Dismissal } from "../../src/domain/statements";
import { GOOD_MEMORY, generatorHarness, RESEARCH_TURN } from "../support/fakes/agent-world";
import { reply, toolResultsOf } from "../support/fakes/scripted-llm";

const ACCEPT = { accepted: true, reason: "Every statement is supported by its items.", unsupported: [] };

const lastUserText = (request: {
  messages: { role: string; content: { type: string; text?: string }[] }[];
}) => {
  const last = request.messages.at(-1)!;
  expect(last.role).toBe("user");
  return last.content.map((b) => b.text ?? "").join("");
};

describe("the generator", () => {
  it("researches, passes the checks and the judge, and returns statements with item ids", async () => {
    const h = await generatorHarness();
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.memory(GOOD_MEMORY, { inputTokens: 900, outputTokens: 150 }),
    );
    h.judge.push(reply.verdict(ACCEPT, { inputTokens: 700, outputTokens: 40 }));

    const result = await h.run();

    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements).toEqual([
      {
        section: "Role and team",
        text: "Engineering manager of the Payments team",
        itemIds: [h.ids.charter],
      },
      {
        section: "Current projects",
        text: "Leads the payments migration; the target date is 3 March",
        itemIds: [h.ids.plan],
      },
      {
        section: "Commitments and deadlines",
        text: "Will send the Q3 roadmap to Dana by Friday",
        itemIds: [h.ids.standup],
      },
    ]);
    expect(result.salvaged).toBeNull();
    expect(renderMemory(result.statements).markdown).toContain(
      "- Leads the payments migration; the target date is 3 March [2]",
    );
    expect(result.verdict).toEqual(ACCEPT);
    expect(result.generatorModel).toBe("anthropic:generator-test");
    expect(result.judgeModel).toBe("openai:judge-test");
    expect(result.stats).toEqual({
      turns: 2,
      toolCalls: 2,
      inputTokens: 1700,
      outputTokens: 210,
      usage: {
        "anthropic:generator-test": { inputTokens: 1000, outputTokens: 170, calls: 2 },
        "openai:judge-test": { inputTokens: 700, outputTokens: 40, calls: 1 },
      },
    });
    h.llm.assertComplete();
    h.judge.assertComplete();
  });

  it("gives the model its subject, the time, the tools and the tool results", async () => {
    const h = await generatorHarness();
    h.llm.push(reply.tools(RESEARCH_TURN), reply.memory(GOOD_MEMORY));
    h.judge.push(reply.verdict(ACCEPT));
    await h.run();

    const [first, second] = h.llm.calls;
    // The subject is named where a real request needs it (the task), and in the end-user id: no line exists
    // only for a test double to find.
    expect(first!.system).not.toContain("Subject:");
    expect(first!.messages[0]!.content).toEqual([{ type: "text", text: expect.stringContaining(h.alice) }]);
    expect(first!.endUserId).toBe(await endUserIdOf(h.alice));
    expect(first!.system).toContain("Now: 2025-06-02T09:00:00.000Z");
    expect(first!.system).not.toContain("<previous_memory>");
    expect(first!.system).not.toContain("<changes_since_previous>");
    expect(first!.tools!.map((t) => t.name)).toEqual([
      "search_items",
      "read_item",
      "recent_activity",
      "linked_items",
      "top_people",
      "person",
    ]);
    expect(first!.messages).toHaveLength(1);
    const results = toolResultsOf(second!);
    expect(results.map((r) => r.isError)).toEqual([false, false]);
    const refs = results.flatMap((r) => (r.content as { items: { ref: string }[] }).items.map((i) => i.ref));
    expect(refs).toEqual(["E1", "D1", "E2", "M1"]);
  });

  it("sends the judge the draft and the text of the items it cites", async () => {
    const h = await generatorHarness();
    h.llm.push(reply.tools(RESEARCH_TURN), reply.memory(GOOD_MEMORY));
    h.judge.push(reply.verdict(ACCEPT));
    await h.run();

    expect(h.judge.calls).toHaveLength(1);
    const request = h.judge.calls[0]!;
    expect(request.toolChoice).toEqual({ type: "tool", name: "submit_verdict" });
    const message = lastUserText(request);
    expect(message).toContain(
      '<statement index="2" section="Commitments and deadlines" cites="M1">Will send the Q3 roadmap to Dana by Friday</statement>',
    );
    expect(message).toContain("Alice Smith is the engineering manager of the Payments team.");
    expect(message).toContain('<item ref="M1" kind="message" title="standup">');
    expect(message).not.toContain("IGNORE ALL PREVIOUS INSTRUCTIONS");
  });

  it("uses the final answer's memory block only, never one from an earlier turn", async () => {
    const h = await generatorHarness();
    const early: LlmResponse = {
      content: [
        { type: "text", text: "<memory>\n- Is the CEO of Acme [E1]\n</memory>" },
        { type: "tool_call", id: "t1", name: "search_items", input: { query: "payments" } },
      ],
      stopReason: "tool_use",
      usage: { inputTokens: 10, outputTokens: 10 },
    };
    h.llm.push(early, reply.memory("## Current projects\n- Leads the payments migration [E1]"));
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run();
    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements.map((s) => s.text)).toEqual(["Leads the payments migration"]);
  });

  it("sends failed checks back once in the same conversation and accepts the fixed draft", async () => {
    const h = await generatorHarness();
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.text("Alice leads the payments migration [E1]."),
      reply.memory("## Current projects\n- Leads the payments migration [E1]"),
    );
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run();
    expect(result.outcome).toBe("accepted");
    const revision = h.llm.calls[2]!;
    expect(revision.messages).toHaveLength(5);
    expect(revision.messages[3]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Alice leads the payments migration [E1]." }],
    });
    expect(lastUserText(revision)).toContain("- the final answer has no <memory>...</memory> block");
    expect(h.judge.calls).toHaveLength(1);
    expect(result.stats.turns).toBe(3);
  });

  it("fails with no_memory_block when the revised answer still has no memory block, without calling the judge", async () => {
    const h = await generatorHarness();
    h.llm.push(reply.text("I could not find enough."), reply.text("Still nothing."));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "failed", errorCode: "no_memory_block", retryable: true });
    expect(h.judge.calls).toHaveLength(0);
    h.llm.assertComplete();
  });

  it("rejects a draft that fails the checks twice, with the checks' reason and the statements at fault", async () => {
    const h = await generatorHarness();
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.memory("- Leads the payments migration [E1]\n- Is a great manager"),
      reply.memory("- Leads the payments migration [E1]\n- Is a great manager"),
    );

    const result = await h.run();
    expect(result.outcome).toBe("rejected");
    if (result.outcome !== "rejected") return;
    expect(result.reason).toBe('checks failed: statement 1 ("Is a great manager") cites nothing');
    expect(result.verdict).toEqual({ accepted: false, reason: result.reason, unsupported: [1] });
    expect(lastUserText(h.llm.calls[2]!)).toContain('statement 1 ("Is a great manager") cites nothing');
    expect(h.judge.calls).toHaveLength(0);
  });

  it("revises once with the judge's feedback and accepts the revision", async () => {
    const h = await generatorHarness();
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.memory("- Leads the payments migration; the target date is 3 April [E1]"),
      reply.memory("- Leads the payments migration; the target date is 3 March [E1]"),
    );
    h.judge.push(
      reply.verdict({ accepted: false, reason: "E1 says 3 March, not 3 April.", unsupported: [0] }),
      reply.verdict(ACCEPT),
    );

    const result = await h.run();
    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements[0]!.text).toBe("Leads the payments migration; the target date is 3 March");
    const feedback = lastUserText(h.llm.calls[2]!);
    expect(feedback).toContain("A fact-checker rejected your memory: E1 says 3 March, not 3 April.");
    expect(feedback).toContain(
      '- statement 0: "Leads the payments migration; the target date is 3 April" [E1]',
    );
    expect(h.judge.calls).toHaveLength(2);
  });

  it("rejects with the judge's verdict when the revision is rejected too", async () => {
    const h = await generatorHarness();
    const rejection = { accepted: false, reason: "Nothing in E1 supports this.", unsupported: [0] };
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.memory("- Is the CEO [E1]"),
      reply.memory("- Is the CEO of Acme [E1]"),
    );
    h.judge.push(reply.verdict(rejection), reply.verdict(rejection));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "rejected", verdict: rejection, reason: rejection.reason });
    expect(result.stats.turns).toBe(3);
    h.llm.assertComplete();
    h.judge.assertComplete();
  });

  it("does not accept a verdict that says accepted but lists unsupported statements", async () => {
    const h = await generatorHarness();
    const muddled = { accepted: true, reason: "Mostly fine.", unsupported: [0] };
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.memory("- Is the CEO [E1]"),
      reply.memory("- Is the CEO [E1]"),
    );
    h.judge.push(reply.verdict(muddled), reply.verdict(muddled));

    const result = await h.run();
    expect(result.outcome).toBe("rejected");
    if (result.outcome !== "rejected") return;
    expect(result.reason).toBe("the judge accepted but found statements 0 unsupported: Mostly fine.");
  });

  it("salvages a draft with one invented ref: drops that statement, judges the rest and accepts it in one draft", async () => {
    const h = await generatorHarness();
    h.llm.push(reply.tools(RESEARCH_TURN), reply.memory(`${GOOD_MEMORY}\n- Owns the 2026 budget [E9]`));
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run();
    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements.map((s) => s.text)).toEqual([
      "Engineering manager of the Payments team",
      "Leads the payments migration; the target date is 3 March",
      "Will send the Q3 roadmap to Dana by Friday",
    ]);
    expect(result.salvaged).toEqual({
      kept: 3,
      dropped: 1,
      statements: [
        {
          section: "Commitments and deadlines",
          text: "Owns the 2026 budget",
          reason: "statement 3 cites E9, which no tool result of this run returned",
          cause: "checks",
        },
      ],
    });
    expect(h.llm.calls).toHaveLength(2);
    expect(h.judge.calls).toHaveLength(1);
    expect(JSON.stringify(h.judge.calls[0]!.messages)).not.toContain("2026 budget");
  });

  it("salvages the statements the judge found supported when it flags only some", async () => {
    const h = await generatorHarness();
    h.llm.push(reply.tools(RESEARCH_TURN), reply.memory(`${GOOD_MEMORY}\n- Prefers async updates [M1]`));
    h.judge.push(
      reply.verdict({ accepted: false, reason: "M1 says nothing about updates.", unsupported: [3] }),
    );

    const result = await h.run();
    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements).toHaveLength(3);
    expect(result.verdict).toEqual({
      accepted: true,
      reason: "M1 says nothing about updates.",
      unsupported: [],
    });
    expect(result.salvaged).toMatchObject({
      kept: 3,
      dropped: 1,
      statements: [{ text: "Prefers async updates", reason: expect.stringContaining("M1 says nothing") }],
    });
    expect(h.llm.calls).toHaveLength(2);
  });

  it("revises instead of salvaging when less than the policy's share would survive", async () => {
    const h = await generatorHarness();
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.memory("- Leads the payments migration [E1]\n- Owns the budget [E9]\n- Runs hiring [E8]"),
      reply.memory("- Leads the payments migration [E1]"),
    );
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "accepted", salvaged: null });
    expect(lastUserText(h.llm.calls[2]!)).toContain("statement 1 cites E9");
  });

  it("revises instead of salvaging when a failure belongs to no one statement", async () => {
    const h = await generatorHarness();
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.text(`Here it is.\n<memory>\n${GOOD_MEMORY}\n</memory>`),
      reply.memory(GOOD_MEMORY),
    );
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "accepted", salvaged: null });
    expect(h.llm.calls).toHaveLength(3);
  });

  it("fails with judge_invalid_verdict when the judge's answer is not a valid verdict", async () => {
    const h = await generatorHarness();
    h.llm.push(reply.tools(RESEARCH_TURN), reply.memory(GOOD_MEMORY));
    h.judge.push(reply.verdict({ accepted: "maybe", reason: "?", unsupported: [] }));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "failed", errorCode: "judge_invalid_verdict", retryable: true });
    if (result.outcome === "failed") expect(result.errorMessage).toMatch(/^invalid verdict/);
  });

  it("fails with the LLM error's code and retryable flag, keeping the stats so far", async () => {
    const h = await generatorHarness();
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      new LlmError("llm_rate_limited", "429 Too Many Requests", true, 30),
    );

    const result = await h.run();
    expect(result).toMatchObject({
      outcome: "failed",
      errorCode: "llm_rate_limited",
      errorMessage: "429 Too Many Requests",
      retryable: true,
    });
    expect(result.stats).toMatchObject({ turns: 1, toolCalls: 2, inputTokens: 100 });
  });

  it("fails with the judge's LLM error when the judge call fails", async () => {
    const h = await generatorHarness();
    h.llm.push(reply.tools(RESEARCH_TURN), reply.memory(GOOD_MEMORY));
    h.judge.push(new LlmError("llm_auth", "401 invalid x-api-key", false));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "failed", errorCode: "llm_auth", retryable: false });
  });

  it("fails with internal_error when the store fails outside a tool call", async () => {
    const h = await generatorHarness();
    h.llm.push(reply.tools(RESEARCH_TURN), () => {
      h.store.failWith = new Error("database unavailable");
      return reply.memory("- Leads the payments migration [E1]");
    });

    const result = await h.run();
    expect(result).toMatchObject({
      outcome: "failed",
      errorCode: "internal_error",
      errorMessage: "database unavailable",
      retryable: true,
    });
    h.llm.assertComplete();
    expect(h.judge.calls).toHaveLength(0);
  });

  it("fails with aborted when the caller's signal has fired", async () => {
    const h = await generatorHarness();
    const controller = new AbortController();
    h.llm.push((_request) => {
      controller.abort();
      throw new LlmError("llm_connection", "request aborted", true);
    });

    const result = await h.run(null, controller.signal);
    expect(result).toMatchObject({ outcome: "failed", errorCode: "aborted", retryable: true });
    expect(h.llm.calls).toHaveLength(1);
  });
});

describe("a refresh", () => {
  async function refreshHarness() {
    const h = await generatorHarness();
    const previous: PreviousMemory = {
      versionId: crypto.randomUUID(),
      markdown: "(not used)",
      generatedAt: new Date("2025-06-01T00:00:00Z"),
      statements: [
        { section: "Current projects", text: "Leads the payments migration", itemIds: [h.ids.plan] },
        { section: "Role and team", text: "Manages the Payments team", itemIds: [h.ids.charter, h.ids.plan] },
        { section: "Role and team", text: "Got a payments bonus", itemIds: [h.ids.salary, h.ids.plan] },
      ],
    };
    h.clock.set("2025-06-01T12:00:00Z");
    await h.store.upsert(h.alice, [
      {
        source: "slack",
        externalId: "standup-2",
        kind: "message",
        title: "Re: standup",
        body: "Alice: the payments migration moved to 10 March.",
        author: "alice@acme.test",
        occurredAt: new Date("2025-06-01T12:00:00Z"),
      },
    ]);
    h.clock.set("2025-06-02T09:00:00Z");
    return { ...h, previous };
  }

  it("shows the previous memory with this run's refs, drops what the subject can no longer see, and gives the digest", async () => {
    const h = await refreshHarness();
    h.llm.push(
      reply.tools([{ name: "recent_activity", input: { since: "2025-06-01" } }]),
      reply.memory(
        "## Current projects\n- Leads the payments migration; now due 10 March [E1][M1]\n## Role and team\n- Manages the Payments team [D1][E1]",
      ),
    );
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run(h.previous);

    const system = h.llm.calls[0]!.system;
    expect(system).toContain(
      "<previous_memory>\n## Current projects\n- Leads the payments migration [E1]\n\n## Role and team\n- Manages the Payments team [D1][E1]\n</previous_memory>",
    );
    expect(system).not.toContain("bonus");
    expect(system).toContain("<changes_since_previous>\nSince 2025-06-01T00:00:00.000Z:");
    expect(system).toContain("New items by kind: message 1");
    expect(system).toContain("- <untrusted>standup</untrusted> (1 items)");
    // The changed item by ref, with its text: the model need not search for what changed.
    expect(system).toContain(
      "Changed items, newest first, new unless marked updated; title, then the start of the text (read_item gives all of it when cut):\n- M1 message, 2025-06-01T12:00Z, alice@acme.test: <untrusted>Re: standup\nAlice: the payments migration moved to 10 March.</untrusted>\n</changes_since_previous>",
    );
    expect(lastUserText(h.llm.calls[0]!)).toMatch(/^Refresh the memory/);

    const [recent] = toolResultsOf(h.llm.calls[1]!);
    expect((recent!.content as { items: { ref: string }[] }).items.map((i) => i.ref)).toEqual(["M1"]);

    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    const newMessage = (await h.store.search(h.alice, { q: "10 March", limit: 5 })).items[0]!;
    expect(result.statements.map((s) => s.itemIds)).toEqual([
      [h.ids.plan, newMessage.id],
      [h.ids.charter, h.ids.plan],
    ]);
    // The judge checks the changed statement; the one kept word for word, citing unchanged items, was
    // judged when the previous memory was accepted.
    const judged = lastUserText(h.judge.calls[0]!);
    expect(judged).toContain(
      '<statement index="0" section="Current projects" cites="E1 M1">Leads the payments migration; now due 10 March</statement>',
    );
    expect(judged).not.toContain("Manages the Payments team");
    expect(judged).not.toContain('<item ref="D1"');
    expect(result.verdict).toEqual({
      accepted: true,
      reason: `${ACCEPT.reason} (1 statements of the previous memory, unchanged, citing unchanged items and touched by no newer item, were not judged again.)`,
      unsupported: [],
    });
  });

  it("makes no judge call when the draft only keeps previous statements that no changed item touches", async () => {
    const h = await refreshHarness();
    h.llm.push(reply.memory("## Role and team\n- Manages the Payments team [D1][E1]"));

    const result = await h.run(h.previous);

    expect(h.judge.calls).toHaveLength(0);
    expect(result).toMatchObject({
      outcome: "accepted",
      verdict: { accepted: true, unsupported: [] },
      stats: { turns: 1, toolCalls: 0 },
    });
    if (result.outcome !== "accepted") return;
    expect(result.verdict.reason).toMatch(/^All 1 statements are the previous memory's/);
    expect(result.statements).toEqual(h.previous.statements.slice(1, 2));
  });

  it("judges a kept statement again next to the newer item that touches it, marked as newer", async () => {
    const h = await refreshHarness();
    h.llm.push(
      reply.memory(
        "## Current projects\n- Leads the payments migration [E1]\n## Role and team\n- Manages the Payments team [D1][E1]",
      ),
    );
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run(h.previous);

    // The standup message names Alice and the payments migration: it touches the first statement only.
    expect(h.judge.calls).toHaveLength(1);
    const judged = lastUserText(h.judge.calls[0]!);
    expect(judged).toContain(
      '<statement index="0" section="Current projects" cites="E1" related="M1">Leads the payments migration</statement>',
    );
    expect(judged).not.toContain("Manages the Payments team");
    // Its cited item was judged whole before: it comes back by the passage the statement rests on.
    expect(judged).toContain(
      '<item ref="E1" kind="email" title="Payments migration plan" excerpt="true">From: alice@acme.test\nDate: 2025-05-20T10:00:00.000Z\n\nAlice leads the payments migration.</item>',
    );
    expect(judged).toContain(
      'Newer items related to statements of the previous memory:\n<item ref="M1" kind="message" title="Re: standup" newer="true">',
    );
    expect(judged).toContain("the payments migration moved to 10 March");
    expect(h.judge.calls[0]!.system).toContain("superseded");
    expect(result).toMatchObject({ outcome: "accepted", superseded: [] });
  });

  it("drops a kept statement the judge finds superseded by a newer item, and says by which", async () => {
    const h = await refreshHarness();
    h.previous.statements[0] = {
      section: "Current projects",
      text: "The payments migration is due 3 March",
      itemIds: [h.ids.plan],
      id: "stmt-due",
      firstStated: "2025-05-20T10:00:00.000Z",
    };
    h.llm.push(
      reply.memory(
        [
          "## Current projects",
          "- The payments migration is due 3 March [E1]",
          "## Role and team",
          "- Manages the Payments team [D1][E1]",
          "- Engineering manager of the Payments team [D1]",
          "- Alice leads the payments migration [E1]",
        ].join("\n"),
      ),
    );
    h.judge.push(
      reply.verdict({
        accepted: false,
        reason: "M1 moves the migration to 10 March.",
        unsupported: [],
        superseded: [{ index: 0, by: "M1" }],
      }),
    );

    const result = await h.run(h.previous);

    const judged = lastUserText(h.judge.calls[0]!);
    expect(judged).toContain('cites="E1" related="M1">The payments migration is due 3 March</statement>');
    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements.map((s) => s.text)).not.toContain("The payments migration is due 3 March");
    const standup = (await h.store.search(h.alice, { q: "10 March", limit: 5 })).items[0]!;
    expect(result.superseded).toEqual([
      {
        statementId: "stmt-due",
        section: "Current projects",
        text: "The payments migration is due 3 March",
        byItemId: standup.id,
        handled: "dropped",
      },
    ]);
    expect(result.salvaged?.statements).toEqual([
      {
        section: "Current projects",
        text: "The payments migration is due 3 March",
        reason: expect.stringMatching(
          /^the judge found it superseded by M1: M1 moves the migration to 10 March\./,
        ),
        cause: "superseded",
        supersededBy: standup.id,
        statementId: "stmt-due",
      },
    ]);
  });

  it("sends a superseded statement back with the revision feedback when salvage would drop too much", async () => {
    const h = await refreshHarness();
    h.previous.statements[0] = {
      section: "Current projects",
      text: "The payments migration is due 3 March",
      itemIds: [h.ids.plan],
    };
    h.llm.push(
      reply.memory("## Current projects\n- The payments migration is due 3 March [E1]"),
      reply.memory("## Current projects\n- The payments migration moved to 10 March [M1]"),
    );
    h.judge.push(
      reply.verdict({
        accepted: false,
        reason: "Moved.",
        unsupported: [],
        superseded: [{ index: 0, by: "M1" }],
      }),
      reply.verdict(ACCEPT),
    );

    const result = await h.run(h.previous);

    expect(lastUserText(h.llm.calls[1]!)).toContain(
      'Statements of the previous memory that newer items supersede:\n- statement 0: "The payments migration is due 3 March" [E1], superseded by M1',
    );
    expect(result).toMatchObject({
      outcome: "accepted",
      statements: [{ text: "The payments migration moved to 10 March" }],
      superseded: [{ statementId: null, text: "The payments migration is due 3 March", handled: "revised" }],
    });
  });

  it("refuses a verdict that calls a statement superseded by an item it was not shown as newer", async () => {
    const h = await refreshHarness();
    h.llm.push(reply.memory("## Current projects\n- Leads the payments migration [E1]"));
    h.judge.push(
      reply.verdict({ accepted: false, reason: "x", unsupported: [], superseded: [{ index: 0, by: "D1" }] }),
    );

    const result = await h.run(h.previous);

    expect(result).toMatchObject({ outcome: "failed", errorCode: "judge_invalid_verdict" });
    if (result.outcome !== "failed") return;
    expect(result.errorMessage).toContain("D1, which is not a newer item shown");
  });

  it("never re-judges a kept statement without a related-evidence finder (the cost it saves)", async () => {
    const h = await refreshHarness();
    h.llm.push(reply.memory("## Current projects\n- Leads the payments migration [E1]"));

    const result = await h.run(h.previous, undefined, { deps: { related: null } });

    expect(h.judge.calls).toHaveLength(0);
    expect(result).toMatchObject({ outcome: "accepted" });
  });

  it("judges a kept statement again when one of its items changed since, or when its citations changed", async () => {
    const h = await refreshHarness();
    h.clock.set("2025-06-01T18:00:00Z");
    await h.store.upsert(h.bob, [
      {
        source: "gdrive",
        externalId: "charter",
        kind: "doc",
        title: "Payments team charter",
        body: "Alice Smith is no longer the engineering manager of the Payments team.",
        author: "bob@acme.test",
        occurredAt: new Date("2025-04-01T12:00:00Z"),
        sharedWith: [h.alice],
      },
    ]);
    h.clock.set("2025-06-02T09:00:00Z");
    h.llm.push(
      reply.memory(
        "## Current projects\n- Leads the payments migration [E1][M1]\n## Role and team\n- Manages the Payments team [D1][E1]",
      ),
    );
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run(h.previous);

    expect(h.llm.calls[0]!.system).toContain(
      "- D1 doc, updated (the previous memory cites it), 2025-04-01T12:00Z, bob@acme.test: <untrusted>Payments team charter\n",
    );
    const judged = lastUserText(h.judge.calls[0]!);
    expect(judged).toContain('<statement index="0" section="Current projects" cites="E1 M1">');
    expect(judged).toContain('<statement index="1" section="Role and team" cites="D1 E1">');
    expect(judged).toContain("Alice Smith is no longer the engineering manager");
    expect(result).toMatchObject({ outcome: "accepted", verdict: ACCEPT });
  });

  it("maps the judge's statement numbers back to the draft's when kept statements were not sent", async () => {
    const h = await refreshHarness();
    h.llm.push(
      reply.memory(
        [
          "## Current projects",
          "- Leads the payments migration [E1]",
          "- The payments migration moved to 10 March [M1]",
          "## Role and team",
          "- Manages the Payments team [D1][E1]",
          "- Runs the standup with Erin [M1]",
        ].join("\n"),
      ),
    );
    h.judge.push(reply.verdict({ accepted: false, reason: "M1 does not name Erin.", unsupported: [2] }));

    const result = await h.run(h.previous);

    const judged = lastUserText(h.judge.calls[0]!);
    // The kept statement the standup message touches is judged again; the other kept one is not.
    expect(judged).toContain(
      '<statement index="0" section="Current projects" cites="E1" related="M1">Leads the payments migration',
    );
    expect(judged).toContain('<statement index="1" section="Current projects" cites="M1">');
    expect(judged).toContain('<statement index="2" section="Role and team" cites="M1">Runs the standup');
    expect(judged.match(/<statement /g)).toHaveLength(3);
    // Statement 2 of the judge's three is statement 3 of the draft: that one is dropped, the rest kept.
    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements.map((s) => s.text)).toEqual([
      "Leads the payments migration",
      "The payments migration moved to 10 March",
      "Manages the Payments team",
    ]);
    expect(result.salvaged?.statements.map((s) => s.text)).toEqual(["Runs the standup with Erin"]);
  });
});

describe("dismissed statements", () => {
  const dismissal = (text: string, itemIds: string[], reason: string | null = null): Dismissal => ({
    id: crypto.randomUUID(),
    statementId: crypto.randomUUID(),
    section: "Current projects",
    text,
    itemIds,
    reason,
    at: new Date("2025-06-01T08:00:00Z"),
  });

  it("tells the model what the subject dismissed, and drops a draft statement restating one before the judge", async () => {
    const h = await generatorHarness();
    const dismissed = [
      dismissal("Leads the payments migration; the target date is 3 March", [h.ids.plan], "moved"),
    ];
    h.llm.push(reply.tools(RESEARCH_TURN), reply.memory(GOOD_MEMORY));
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run(null, undefined, { dismissed });

    const system = h.llm.calls[0]!.system;
    expect(system).toContain(
      "<dismissed_statements>\n- <untrusted>Leads the payments migration; the target date is 3 March</untrusted> (<untrusted>moved</untrusted>)\n</dismissed_statements>",
    );
    expect(lastUserText(h.judge.calls[0]!)).not.toContain("target date is 3 March");
    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements.map((s) => s.text)).toEqual([
      "Engineering manager of the Payments team",
      "Will send the Q3 roadmap to Dana by Friday",
    ]);
    // Not a fault of the draft: the two others are all of it that counts, so salvage has nothing to share out.
    expect(result.salvaged).toEqual({
      kept: 2,
      dropped: 1,
      statements: [
        {
          section: "Current projects",
          text: "Leads the payments migration; the target date is 3 March",
          reason: "restates a statement the subject dismissed: moved",
          cause: "dismissed",
        },
      ],
    });
  });

  it("drops a rewording citing the same items, and the same words citing other items, but not a correction", async () => {
    const h = await generatorHarness();
    const dismissed = [
      dismissal("Leads the payments migration, the target date is 3 March", [h.ids.plan]),
      dismissal("Will send the Q3 roadmap to Dana by Friday", [h.ids.plan]),
    ];
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.memory(
        [
          "## Current projects",
          "- Leads the payments migration; the target date is 3 March! [E1]",
          "- Leads the payments migration; the target date is 10 March [E1]",
          "## Commitments and deadlines",
          "- Will send the Q3 roadmap to Dana by Friday [M1]",
          "- Engineering manager of the Payments team [D1]",
        ].join("\n"),
      ),
    );
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run(null, undefined, { dismissed });

    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements.map((s) => s.text)).toEqual([
      "Leads the payments migration; the target date is 10 March",
      "Engineering manager of the Payments team",
    ]);
  });

  it("revises a draft whose every statement restates a dismissal", async () => {
    const h = await generatorHarness();
    const dismissed = [dismissal("Leads the payments migration", [h.ids.plan])];
    h.llm.push(
      reply.tools(RESEARCH_TURN),
      reply.memory("## Current projects\n- Leads the payments migration [E1]"),
      reply.memory("## Role and team\n- Engineering manager of the Payments team [D1]"),
    );
    h.judge.push(reply.verdict(ACCEPT));

    const result = await h.run(null, undefined, { dismissed });

    expect(lastUserText(h.llm.calls[2]!)).toContain("every statement restates one the subject dismissed");
    expect(result).toMatchObject({
      outcome: "accepted",
      statements: [{ text: "Engineering manager of the Payments team" }],
    });
  });
});
