/**
 * Through the worker with the real wiring (MemoryAgent alarm -> real generator -> SDK adapters -> the fake
 * LLM server, scripted for the generator; the judge is the fake's citation-checking policy):
 * salvage of a draft with one invented ref, and a refresh whose newer item contradicts the previous memory.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { endUserIdOf } from "../src/agent/end-user";
import { newUserId } from "./support/auth";
import { firstMemory, forcedRefresh, memoryJson, runsOf, setAgentClock, versionsOf } from "./support/e2e";
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

const RECENT = { name: "recent_activity", input: { since: "2000-01-01T00:00:00Z" } };
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

async function subjectWith(items: ReturnType<typeof item>[]) {
  const userId = newUserId("e2e-salvage");
  used.push(userId);
  const clock = new FakeClock(new Date(Date.now() + 365 * 24 * 3600_000));
  await setAgentClock(userId, clock);
  await ingestSettled(userId, items);
  return { userId, clock, match: await endUserIdOf(userId) };
}

describe("salvage and contradiction, end to end", () => {
  it("accepts a draft with one invented ref without that statement, in one run, and GET /memory/runs shows the drop", async () => {
    const s = await subjectWith([
      item({
        externalId: "plan",
        kind: "email",
        body: "Ada leads the payments migration.",
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
      s.match,
      [
        { toolCalls: [RECENT] },
        {
          text: [
            "<memory>",
            "## Current projects",
            "- Leads the payments migration [E1]",
            "- Reviews every billing pull request [M1]",
            "## Role and team",
            "- Mentors two new engineers on the platform team [D1]",
            "- Owns the 2027 hiring budget [E7]",
            "</memory>",
          ].join("\n"),
        },
      ],
      { role: "generator" },
    );

    const memory = await firstMemory(s.userId);
    await script.assertComplete();
    expect(memory.memory).not.toContain("hiring budget");
    expect((await memoryJson(s.userId)).statements.map((st) => st.text)).toEqual([
      "Leads the payments migration",
      "Reviews every billing pull request",
      "Mentors two new engineers on the platform team",
    ]);
    const runs = await runsOf(s.userId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: "succeeded",
      turns: 2,
      salvaged: {
        kept: 3,
        dropped: 1,
        statements: [
          {
            section: "Role and team",
            text: "Owns the 2027 hiring budget",
            reason: "statement 3 cites E7, which no tool result of this run returned",
          },
        ],
      },
    });
    expect(runs[0]!.usage["openai:fake-judge"]!.calls).toBe(1);
  });

  it("drops the old line when a newer item contradicts the previous memory: the accepted refresh holds only the new fact", async () => {
    const s = await subjectWith([
      item({
        externalId: "deadline",
        kind: "email",
        body: "The launch deadline is 3 March.",
        occurredAt: hoursAgo(48),
      }),
      item({
        externalId: "standup",
        kind: "message",
        source: "slack",
        body: "Ada runs the weekly launch standup.",
        occurredAt: hoursAgo(47),
      }),
    ]);
    await llm.script(
      s.match,
      [
        { toolCalls: [RECENT] },
        {
          text: "<memory>\n## Commitments and deadlines\n- Launch deadline is 3 March [E1]\n- Runs the weekly launch standup [M1]\n</memory>",
        },
      ],
      { role: "generator" },
    );
    const first = await firstMemory(s.userId);
    expect(first.memory).toContain("3 March");

    await ingestSettled(s.userId, [
      item({
        externalId: "moved",
        kind: "email",
        body: "Update: the launch deadline moved to 17 March.",
        occurredAt: hoursAgo(1),
      }),
    ]);
    const refresh = await llm.script(
      s.match,
      [
        { toolCalls: [RECENT] },
        {
          text: "<memory>\n## Commitments and deadlines\n- Launch deadline moved to 17 March [E2]\n- Runs the weekly launch standup [M1]\n</memory>",
        },
      ],
      { role: "generator" },
    );
    await forcedRefresh(s.userId, s.clock);
    await refresh.assertComplete();

    // The model was shown the old line as the previous memory and told to change what newer items contradict.
    const [prompt, withResults] = await refresh.requests();
    const system = prompt!.neutral!.system;
    expect(system).toContain("- Launch deadline is 3 March [E1]");
    expect(system).toContain("change or drop what newer items contradict");
    expect(JSON.stringify(withResults!.neutral!.messages)).toContain("deadline moved to 17 March");

    const served = await memoryJson(s.userId);
    expect(served.version).not.toBe(first.version);
    const texts = served.statements.map((st) => st.text);
    expect(texts).toEqual(["Launch deadline moved to 17 March", "Runs the weekly launch standup"]);
    expect(texts.join("\n")).not.toContain("3 March");
    expect(await versionsOf(s.userId)).toHaveLength(2);
    const runs = await runsOf(s.userId);
    // The ingest had already scheduled the refresh; the forced refresh joined it. (Both runs were queued at
    // the same instant of the agent's fixed clock, so the listing's order between them is the id's.)
    expect(runs.map((r) => [r.trigger, r.status, r.salvaged]).sort()).toEqual([
      ["ingest", "succeeded", null],
      ["read", "succeeded", null],
    ]);
  });
});
