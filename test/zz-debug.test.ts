import { afterEach, beforeAll, describe, it } from "vitest";
import { demoRefreshBatch } from "../fixtures/demo-workspace";
import { endUserIdOf } from "../src/agent/end-user";
import { backdateMemory, demoSubject, firstMemory, forcedRefresh, memoryJson, runsOf } from "./support/e2e";
import { fakeLlm } from "./support/fake-llm-control";
import { warmUpWorker } from "./support/items";
import { clearAlarm, ingestSettled } from "./support/memory-agent";

const llm = fakeLlm();
const used: string[] = [];
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

describe("debug", () => {
  it.each(["ben", "chloe", "dev"] as const)("prints %s", async (who) => {
    const s = await demoSubject(who);
    used.push(...Object.values(s.userIds));
    await firstMemory(s.userId);
    const first = await memoryJson(s.userId);
    const before = new Date();
    await backdateMemory(s.userId, before);
    const seq = Math.max(...(await llm.requests(await endUserIdOf(s.userId))).map((r) => r.seq));
    await ingestSettled(s.userId, demoRefreshBatch(s.now, who, { userIds: s.userIds }));
    await forcedRefresh(s.userId, s.clock);
    const refreshed = await memoryJson(s.userId);
    const runs = await runsOf(s.userId);
    const judge = (await llm.requests(await endUserIdOf(s.userId), { role: "judge" })).filter(
      (r) => r.seq > seq,
    );
    const out = {
      first: first.statements.map((x) => `${x.text} :: ${x.citations.map((c) => c.title).join(" | ")}`),
      refreshed: refreshed.statements.map((x) => x.text),
      runs: runs.map((r) => ({
        t: r.trigger,
        salvaged: r.salvaged,
        superseded: r.superseded,
        usage: r.usage,
      })),
      judge: judge.map((j) => JSON.stringify(j.neutral?.messages)),
    };
    console.log(who, JSON.stringify(out, null, 1));
  });
});
