/**
 * Through the worker with the real wiring (MemoryAgent alarm -> real generator -> SDK adapters -> the fake
 * LLM server, scripted for the generator; the judge is the fake's citation-checking policy): a draft with a
 * statement copied from a tool result, markup and ref included, is accepted without it, and the run's
 * ledger says why it was dropped.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { endUserIdOf } from "../src/agent/end-user";
import { newUserId } from "./support/auth";
import { firstMemory, memoryJson, runsOf, setAgentClock } from "./support/e2e";
import { fakeLlm } from "./support/fake-llm-control";
import { FakeClock } from "./support/fakes/fake-clock";
import { item, warmUpWorker } from "./support/items";
import { clearAlarm, ingestSettled } from "./support/memory-agent";

const llm = fakeLlm();
const used: string[] = [];
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

describe("a statement carrying the prompt's markup", () => {
  it("is dropped by the checks before the judge, and GET /memory/runs says why", async () => {
    const userId = newUserId("e2e-markup");
    used.push(userId);
    await setAgentClock(userId, new FakeClock(new Date(Date.now() + 365 * 24 * 3600_000)));
    await ingestSettled(userId, [
      item({
        externalId: "n6",
        kind: "email",
        title: "Note 6",
        body: "Ada owns the Q4 budget review.",
        occurredAt: hoursAgo(5),
      }),
      item({
        externalId: "chat",
        kind: "message",
        source: "slack",
        body: "Ada reviews every billing pull request.",
        occurredAt: hoursAgo(4),
      }),
      item({
        externalId: "doc",
        kind: "doc",
        source: "drive",
        body: "Ada mentors two new engineers on the platform team.",
        occurredAt: hoursAgo(3),
      }),
    ]);
    const script = await llm.script(
      await endUserIdOf(userId),
      [
        { toolCalls: [{ name: "recent_activity", input: { since: "2000-01-01T00:00:00Z" } }] },
        {
          text: [
            "<memory>",
            "## Current projects",
            "- Owns the Q4 budget review [E1]",
            "- ref : E1 , kind : email , title : <untrusted>Note 6</untrusted> [E1]",
            "- Reviews every billing pull request [M1]",
            "## Role and team",
            "- Mentors two new engineers on the platform team [D1]",
            "</memory>",
          ].join("\n"),
        },
      ],
      { role: "generator" },
    );

    const memory = await firstMemory(userId);
    await script.assertComplete();
    expect(memory.memory).not.toContain("untrusted");
    expect((await memoryJson(userId)).statements.map((s) => s.text)).toEqual([
      "Owns the Q4 budget review",
      "Reviews every billing pull request",
      "Mentors two new engineers on the platform team",
    ]);
    const runs = await runsOf(userId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: "succeeded",
      salvaged: {
        kept: 3,
        dropped: 1,
        statements: [
          {
            section: "Current projects",
            text: "ref : E1 , kind : email , title : <untrusted>Note 6</untrusted>",
            reason: "statement 1 carries the prompt's markup (<untrusted>); a statement is plain text",
          },
        ],
      },
    });
    // The judge saw only the three clean statements.
    const judged = await llm.requests(await endUserIdOf(userId), { role: "judge" });
    expect(judged).toHaveLength(1);
    expect(JSON.stringify(judged[0])).not.toContain("Note 6</untrusted>");
  });
});
