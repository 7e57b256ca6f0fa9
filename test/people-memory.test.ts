/**
 * The memory speaks of persons: a run through the whole worker (fake LLM's reference generator and judge)
 * stores with each statement the people its cited items name, resolved by the service, never the subject
 * herself; GET /memory?format=json serves them and GET /people/:id answers each.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { emailOf } from "../fixtures/demo/people";
import { READ_WRITE } from "./support/auth";
import { demoSubject, firstMemory, forcedRefresh } from "./support/e2e";
import { call, item, json, warmUpWorker } from "./support/items";
import { clearAlarm } from "./support/memory-agent";

const used: string[] = [];
beforeAll(warmUpWorker);
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

interface Statement {
  text: string;
  citations: { id: string }[];
  people: { id: string; name: string }[];
}

describe("statement people", () => {
  it("each statement carries the people its cited items name, resolvable by GET /people/:id, never the subject", async () => {
    // Besides the demo's items (which name people by short names), one that names Ada by her address.
    const s = await demoSubject("ada", {
      extra: {
        ada: [
          item({
            externalId: "people-memory-1",
            title: "Kestrel cutover rehearsal",
            body: "Ada will run the Kestrel cutover rehearsal with Ben on Thursday.",
            author: `Ada Okafor <${emailOf("ada")}>`,
            participants: [`Ben Castillo <${emailOf("ben")}>`],
            occurredAt: new Date(Date.now() - 3_600_000).toISOString(),
          }),
        ],
      },
    });
    used.push(...Object.values(s.userIds));
    // An admin ties Ada to her address: the items name her by it.
    const tie = await call("admin", "PUT", `/members/${s.userId}`, {
      body: { email: emailOf("ada") },
      scopes: [...READ_WRITE, "admin"],
    });
    expect(tie.status).toBe(200);
    await firstMemory(s.userId);
    const body = await json<{ statements: Statement[] }>(await call(s.userId, "GET", "/memory?format=json"));
    expect(body.statements.length).toBeGreaterThan(0);
    expect(body.statements.every((st) => Array.isArray(st.people))).toBe(true);
    const named = body.statements.flatMap((st) => st.people);
    expect(named.length).toBeGreaterThan(0);

    const people = await json<{ people: { id: string; self: boolean }[] }>(
      await call(s.userId, "GET", "/people?limit=200"),
    );
    const self = people.people.find((p) => p.self);
    expect(self).toBeDefined();
    expect(named.some((p) => p.id === self?.id)).toBe(false);

    for (const id of new Set(named.map((p) => p.id))) {
      const res = await call(s.userId, "GET", `/people/${id}`);
      expect(res.status, id).toBe(200);
      const person = await json<{ items: number }>(res);
      expect(person.items).toBeGreaterThan(0);
    }
    // Served from the stored version: a second read answers the same people.
    const again = await json<{ statements: Statement[] }>(await call(s.userId, "GET", "/memory?format=json"));
    expect(again.statements.map((st) => st.people)).toEqual(body.statements.map((st) => st.people));
  });

  it("a merge and its withdrawal reach the statements' people on the next run", async () => {
    const s = await demoSubject("ada");
    used.push(...Object.values(s.userIds));
    await firstMemory(s.userId);
    const peopleOf = async () =>
      (
        await json<{ statements: Statement[] }>(await call(s.userId, "GET", "/memory?format=json"))
      ).statements.map((st) => st.people.map((p) => p.id));
    // The two people the statements name most often.
    const counts = new Map<string, number>();
    for (const ids of await peopleOf()) for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    const [x, y] = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
    expect(x && y).toBeTruthy();

    const merge = await call(s.userId, "POST", "/people/merge", { body: { a: x, b: y } });
    expect(merge.status).toBe(201);
    const { id: correction } = await json<{ id: string }>(merge);
    const merged = await json<{ id: string }>(await call(s.userId, "GET", `/people/${x}`));
    await forcedRefresh(s.userId, s.clock);
    const after = await peopleOf();
    // Every statement that named either now names the one person they became, once.
    expect(after.some((ids) => ids.includes(merged.id))).toBe(true);
    for (const ids of after) {
      expect(ids.filter((id) => id === x || id === y || id === merged.id).length).toBeLessThanOrEqual(1);
      if (merged.id !== x) expect(ids).not.toContain(x);
      if (merged.id !== y) expect(ids).not.toContain(y);
    }

    const withdraw = await call(s.userId, "DELETE", `/people/corrections/${correction}`);
    expect(withdraw.status).toBe(200);
    await forcedRefresh(s.userId, s.clock);
    const apart = (await peopleOf()).flat();
    expect(apart).toContain(x);
    expect(apart).toContain(y);
  });
});
