import { describe, expect, it } from "vitest";
import { RunMeter } from "../../src/agent/budget";
import { nextStep, runAgentLoop } from "../../src/agent/loop";
import { RefTable } from "../../src/agent/refs";
import { createResearchTools } from "../../src/agent/tools";
import type { LlmMessage } from "../../src/domain/llm";
import {
  agentWorld,
  GOOD_MEMORY,
  generatorHarness,
  RESEARCH_TURN,
  TEST_BUDGETS,
} from "../support/fakes/agent-world";
import { reply, ScriptedLlm, toolResultsOf } from "../support/fakes/scripted-llm";

const search = (query: string) => ({ name: "search_items", input: { query } });

describe("the next step", () => {
  it("is the tool calls when the answer has any, whatever else it says", () => {
    const step = nextStep({
      content: [
        { type: "text", text: "Let me look. <memory>- x [E1]</memory>" },
        { type: "tool_call", id: "a", name: "read_item", input: { ref: "E1" } },
      ],
      stopReason: "tool_use",
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    expect(step).toEqual({
      kind: "tool_calls",
      calls: [{ id: "a", name: "read_item", input: { ref: "E1" } }],
    });
  });

  it("is the final answer's text otherwise", () => {
    const step = nextStep({
      content: [
        { type: "text", text: "<memory>" },
        { type: "text", text: "</memory>" },
      ],
      stopReason: "max_tokens",
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    expect(step).toEqual({ kind: "final", text: "<memory>\n</memory>" });
  });
});

describe("the agent loop", () => {
  it("runs tool turns until a final answer, keeping the whole conversation", async () => {
    const world = await agentWorld();
    const llm = new ScriptedLlm("anthropic:test", [
      reply.tools([search("payments")]),
      reply.tools([
        { name: "read_item", input: { ref: "E1" } },
        { name: "read_item", input: { ref: "E9" } },
      ]),
      reply.text("<memory>\n- Leads the payments migration [E1]\n</memory>"),
    ]);
    const tools = createResearchTools({ subjectKey: world.alice, items: world.store, refs: new RefTable() });
    const meter = new RunMeter(world.clock, TEST_BUDGETS);
    const messages: LlmMessage[] = [{ role: "user", content: [{ type: "text", text: "go" }] }];

    const outcome = await runAgentLoop({ llm, tools, meter }, "system", messages);

    expect(outcome).toEqual({
      kind: "final",
      text: "<memory>\n- Leads the payments migration [E1]\n</memory>",
    });
    expect(messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    const reads = toolResultsOf(llm.calls[2]!);
    expect(reads.map((r) => r.isError)).toEqual([false, true]);
    expect(meter.stats()).toMatchObject({ turns: 3, toolCalls: 3 });
    expect(llm.calls.every((c) => c.system === "system" && c.toolChoice?.type === "auto")).toBe(true);
    llm.assertComplete();
  });
});

describe("budgets", () => {
  it("stop the run at the turn budget with budget_turns", async () => {
    const h = await generatorHarness({ maxTurns: 3 });
    h.llm.push(reply.tools([search("a")]), reply.tools([search("b")]), reply.tools([search("c")]));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "failed", errorCode: "budget_turns", retryable: false });
    expect(result.stats).toMatchObject({ turns: 3, toolCalls: 3 });
    h.llm.assertComplete();
    expect(h.judge.calls).toHaveLength(0);
  });

  it("count the revision against the same turn budget", async () => {
    const h = await generatorHarness({ maxTurns: 1 });
    h.llm.push(reply.text("no block here"));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "failed", errorCode: "budget_turns" });
    h.llm.assertComplete();
  });

  it("stop the run at the tool-call budget with budget_tool_calls, before running the calls over it", async () => {
    const h = await generatorHarness({ maxToolCalls: 3 });
    h.llm.push(reply.tools([search("a"), search("b")]), reply.tools([search("c"), search("d")]));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "failed", errorCode: "budget_tool_calls", retryable: false });
    expect(result.stats).toMatchObject({ turns: 2, toolCalls: 2 });
    expect(h.store.viewers).toHaveLength(2);
    h.llm.assertComplete();
  });

  it("stop the run at the token budget with budget_tokens", async () => {
    const h = await generatorHarness({ maxTokens: 1000 });
    const usage = { inputTokens: 500, outputTokens: 100 };
    h.llm.push(reply.tools([search("a")], usage), reply.tools([search("b")], usage));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "failed", errorCode: "budget_tokens", retryable: false });
    expect(result.stats).toMatchObject({ turns: 2, inputTokens: 1000, outputTokens: 200 });
    h.llm.assertComplete();
  });

  it("count the judge's tokens too: no judge call once the token budget is spent", async () => {
    const h = await generatorHarness({ maxTokens: 1000 });
    h.llm.push(
      reply.tools(RESEARCH_TURN, { inputTokens: 300, outputTokens: 50 }),
      reply.memory(GOOD_MEMORY, { inputTokens: 600, outputTokens: 60 }),
    );

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "failed", errorCode: "budget_tokens" });
    expect(h.judge.calls).toHaveLength(0);
  });

  it("stop the run at the wall-clock budget with budget_wall_time, measured with the injected clock", async () => {
    const h = await generatorHarness({ wallMs: 60_000 });
    const slowTurn = (query: string) => () => {
      h.clock.advance(35_000);
      return reply.tools([search(query)]);
    };
    h.llm.push(slowTurn("a"), slowTurn("b"));

    const result = await h.run();
    expect(result).toMatchObject({ outcome: "failed", errorCode: "budget_wall_time", retryable: false });
    expect(result.stats).toMatchObject({ turns: 2 });
    h.llm.assertComplete();
  });

  it("let a run that stays within every budget finish", async () => {
    const h = await generatorHarness({ maxTurns: 2, maxToolCalls: 2, maxTokens: 1000, wallMs: 60_000 });
    h.llm.push(reply.tools(RESEARCH_TURN), () => {
      h.clock.advance(59_000);
      return reply.memory(GOOD_MEMORY);
    });
    h.judge.push(reply.verdict({ accepted: true, reason: "ok", unsupported: [] }));

    const result = await h.run();
    expect(result.outcome).toBe("accepted");
  });
});
