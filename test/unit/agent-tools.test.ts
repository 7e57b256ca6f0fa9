import { describe, expect, it } from "vitest";
import { RefTable } from "../../src/agent/refs";
import { createResearchTools, RESEARCH_TOOL_DEFINITIONS, TOOL_LIMITS } from "../../src/agent/tools";
import { INVALID_TOOL_INPUT } from "../../src/domain/llm";
import { agentWorld } from "../support/fakes/agent-world";

interface Card {
  ref: string;
  kind: string;
  title: string | null;
  author: string | null;
  occurredAt: string;
  snippet?: string;
}

async function setup() {
  const world = await agentWorld();
  const refs = new RefTable();
  const tools = createResearchTools({ subjectKey: world.alice, items: world.store, refs });
  let n = 0;
  const call = async (name: string, input: unknown) => {
    const result = await tools.execute({ id: `c${++n}`, name, input });
    return { ...result, body: JSON.parse(result.content) as Record<string, unknown> };
  };
  return { ...world, refs, tools, call };
}

const cards = (body: Record<string, unknown>) => body.items as Card[];

describe("research tools", () => {
  it("derive one JSON schema per tool from the zod schemas, none of which names a user", () => {
    expect(RESEARCH_TOOL_DEFINITIONS.map((d) => d.name)).toEqual([
      "search_items",
      "read_item",
      "recent_activity",
      "linked_items",
      "top_people",
      "person",
    ]);
    for (const definition of RESEARCH_TOOL_DEFINITIONS) {
      expect(definition.inputSchema.type).toBe("object");
      expect(definition.inputSchema.additionalProperties).toBe(false);
      expect(definition.inputSchema).not.toHaveProperty("$schema");
      const properties = Object.keys(definition.inputSchema.properties as object);
      expect(properties.some((p) => /user|owner|viewer|subject/i.test(p))).toBe(false);
    }
    const search = RESEARCH_TOOL_DEFINITIONS[0]!.inputSchema;
    expect(search.required).toEqual(["query"]);
  });

  it("search_items returns the subject's matching items as cards with refs and untrusted snippets", async () => {
    const { call } = await setup();
    const result = await call("search_items", { query: "payments" });
    expect(result.isError).toBeUndefined();
    const found = cards(result.body);
    expect(found.map((c) => c.title)).toEqual(
      expect.arrayContaining([
        "<untrusted>Payments migration plan</untrusted>",
        "<untrusted>Payments team charter</untrusted>",
      ]),
    );
    expect(found.every((c) => /^[EMD]\d+$/.test(c.ref))).toBe(true);
    expect(
      found.every((c) => c.snippet?.startsWith("<untrusted>") && c.snippet.endsWith("</untrusted>")),
    ).toBe(true);
    expect(JSON.stringify(found)).not.toContain("salary");
  });

  it("search_items asks for a hybrid search (words and meaning), whatever the model sends", async () => {
    const world = await agentWorld();
    const asked: unknown[] = [];
    const store = world.store;
    const items = Object.assign(Object.create(store) as typeof store, {
      search: (subjectKey: string, query: Parameters<typeof store.search>[1]) => {
        asked.push(query.mode);
        return store.search(subjectKey, query);
      },
    });
    const tools = createResearchTools({ subjectKey: world.alice, items, refs: new RefTable() });
    await tools.execute({ id: "c1", name: "search_items", input: { query: "payments" } });
    expect(asked).toEqual(["hybrid"]);
  });

  it("search_items applies kinds, dates, people and limit", async () => {
    const { call } = await setup();
    const docs = cards((await call("search_items", { query: "payments", kinds: ["doc"] })).body);
    expect(docs.map((c) => c.kind)).toEqual(["doc"]);
    const since = cards((await call("search_items", { query: "payments", since: "2025-05-25" })).body);
    expect(since.map((c) => c.title)).toEqual(["<untrusted>Urgent: payments audit</untrusted>"]);
    const until = cards(
      (await call("search_items", { query: "payments", until: "2025-04-30T00:00:00Z" })).body,
    );
    expect(until.map((c) => c.kind)).toEqual(["doc"]);
    const people = cards((await call("search_items", { query: "alice", people: ["dana@acme.test"] })).body);
    expect(people.map((c) => c.kind).sort()).toEqual(["email", "message"]);
    expect(cards((await call("search_items", { query: "payments", limit: 1 })).body)).toHaveLength(1);
  });

  it("search_items rejects bad input with an is_error result the model can read", async () => {
    const { call } = await setup();
    for (const input of [
      {},
      { query: "" },
      { query: "x", limit: 500 },
      { query: "x", kinds: ["spreadsheet"] },
      { query: "x", since: "last tuesday" },
      "payments",
    ]) {
      const result = await call("search_items", input);
      expect(result.isError).toBe(true);
      expect(String(result.body.error)).toMatch(/^invalid input for search_items/);
    }
  });

  it("refuses a parameter naming another user instead of ignoring it", async () => {
    const { call, bob } = await setup();
    const result = await call("search_items", { query: "salary", owner: bob });
    expect(result.isError).toBe(true);
    expect(String(result.body.error)).toContain("owner");
  });

  it("read_item returns the item's body wrapped as untrusted, with its links", async () => {
    const { call } = await setup();
    const standup = cards((await call("search_items", { query: "roadmap" })).body)[0]!;
    const result = await call("read_item", { ref: standup.ref });
    expect(result.isError).toBeUndefined();
    expect(result.body.ref).toBe(standup.ref);
    expect(result.body.body).toBe(
      "<untrusted>Alice: I will send the Q3 roadmap to Dana by Friday. See @plan.</untrusted>",
    );
    expect(result.body.participants).toEqual(["dana@acme.test", "erin@acme.test"]);
    const links = result.body.links as (Card & { direction: string; link: string })[];
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({ kind: "email", direction: "outgoing", link: "mention" });
  });

  it("read_item accepts a lower-case ref and rejects refs this run never handed out", async () => {
    const { call } = await setup();
    const plan = cards((await call("search_items", { query: "migration" })).body)[0]!;
    expect((await call("read_item", { ref: plan.ref.toLowerCase() })).body.ref).toBe(plan.ref);
    const unknown = await call("read_item", { ref: "E99" });
    expect(unknown.isError).toBe(true);
    expect(unknown.body.error).toMatch(/unknown ref E99/);
    expect((await call("read_item", { ref: "not a ref" })).isError).toBe(true);
    expect((await call("read_item", {})).isError).toBe(true);
  });

  it("read_item reports an item that became invisible during the run as an error", async () => {
    const { call, store, bob } = await setup();
    const charter = cards((await call("search_items", { query: "charter" })).body)[0]!;
    await store.upsert(bob, [
      {
        source: "gdrive",
        externalId: "charter",
        kind: "doc",
        title: "Payments team charter",
        body: "Alice Smith is the engineering manager of the Payments team.",
        author: "bob@acme.test",
        occurredAt: new Date("2025-04-01T12:00:00Z"),
        sharedWith: [],
      },
    ]);
    const result = await call("read_item", { ref: charter.ref });
    expect(result.isError).toBe(true);
    expect(result.body.error).toMatch(/no longer available/);
  });

  it("bounds the body of a long item and says it was cut", async () => {
    const { call, store, alice } = await setup();
    await store.upsert(alice, [
      {
        source: "gdrive",
        externalId: "long",
        kind: "doc",
        title: "Huge spec",
        body: "spec ".repeat(5000),
        occurredAt: new Date("2025-05-01T00:00:00Z"),
      },
    ]);
    const doc = cards((await call("search_items", { query: "spec" })).body)[0]!;
    expect(doc.snippet!.length).toBeLessThan(TOOL_LIMITS.snippetChars + 100);
    const body = String((await call("read_item", { ref: doc.ref })).body.body);
    expect(body.length).toBeLessThan(TOOL_LIMITS.bodyChars + 100);
    expect(body).toContain("[truncated,");
  });

  it("recent_activity lists items since a date, newest first, and validates its input", async () => {
    const { call } = await setup();
    const recent = cards((await call("recent_activity", { since: "2025-05-25" })).body);
    expect(recent.map((c) => c.kind)).toEqual(["email", "message"]);
    expect(recent[0]!.occurredAt).toBe("2025-05-30T08:00:00.000Z");
    const messages = cards((await call("recent_activity", { since: "2025-01-01", kinds: ["message"] })).body);
    expect(messages.map((c) => c.kind)).toEqual(["message"]);
    expect((await call("recent_activity", {})).isError).toBe(true);
    expect((await call("recent_activity", { since: "2025-13-45" })).isError).toBe(true);
  });

  it("linked_items follows links in both directions", async () => {
    const { call } = await setup();
    const plan = cards((await call("search_items", { query: "migration" })).body)[0]!;
    const linked = await call("linked_items", { ref: plan.ref });
    const found = cards(linked.body) as (Card & { direction: string })[];
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ kind: "message", direction: "incoming" });
    expect((await call("linked_items", { ref: "M42" })).isError).toBe(true);
  });

  it("top_people counts the people in the subject's visible items", async () => {
    const { call } = await setup();
    const result = await call("top_people", {});
    const people = result.body.people as { person: string; items: number }[];
    expect(people[0]).toEqual({ person: "alice@acme.test", items: 2 });
    expect(people.map((p) => p.person)).not.toContain("hr@acme.test");
    const since = (await call("top_people", { since: "2025-05-29", limit: 5 })).body.people;
    expect(since).toEqual([{ person: "mallory@evil.test", items: 1 }]);
    expect((await call("top_people", { limit: 0 })).isError).toBe(true);
  });

  it("keeps each item's ref stable for the whole run", async () => {
    const { call, refs } = await setup();
    const first = cards((await call("search_items", { query: "payments" })).body);
    const again = cards((await call("search_items", { query: "payments" })).body);
    const recent = cards((await call("recent_activity", { since: "2020-01-01" })).body);
    const refOf = (list: Card[], title: string) => list.find((c) => c.title?.includes(title))?.ref;
    expect(refOf(again, "migration plan")).toBe(refOf(first, "migration plan"));
    expect(refOf(recent, "migration plan")).toBe(refOf(first, "migration plan"));
    expect(refOf(recent, "charter")).toBe(refOf(first, "charter"));
    expect(new Set(recent.map((c) => c.ref)).size).toBe(recent.length);
    expect(refs.size).toBe(4);
  });

  it("answers an unknown tool, malformed arguments and a failing store with error results", async () => {
    const { call, store } = await setup();
    const unknown = await call("send_email", { to: "x" });
    expect(unknown.isError).toBe(true);
    expect(unknown.body.error).toMatch(/unknown tool send_email/);
    const malformed = await call("search_items", { [INVALID_TOOL_INPUT]: '{"query": "pay' });
    expect(malformed.isError).toBe(true);
    expect(malformed.body.error).toMatch(/not a JSON object/);
    store.failWith = new Error("connection reset: password=hunter2");
    const failing = await call("search_items", { query: "payments" });
    expect(failing.isError).toBe(true);
    expect(failing.body.error).toMatch(/search_items failed/);
    expect(failing.content).not.toContain("hunter2");
  });
});
