/**
 * The research tools and the memory's statements speak of persons: top_people (never the subject herself),
 * person(ref), search_items by person, and the people each accepted statement's cited items name.
 */
import { describe, expect, it } from "vitest";
import { RefTable } from "../../src/agent/refs";
import { withStatementPeople } from "../../src/agent/statement-people";
import { createResearchTools } from "../../src/agent/tools";
import type { PreviousMemory } from "../../src/domain/generation";
import type { SearchQuery } from "../../src/domain/items";
import type { HardLink, Sighting } from "../../src/domain/people/model";
import type { PeopleStore } from "../../src/domain/people-store";
import { peopleView, selfKeysOf } from "../../src/domain/people-view";
import { agentWorld, GOOD_MEMORY, generatorHarness, RESEARCH_TURN } from "../support/fakes/agent-world";
import { reply } from "../support/fakes/scripted-llm";

async function setup() {
  const world = await agentWorld();
  const { plan, standup, charter } = world.ids;
  const times = new Map([
    [plan, "2025-05-20T10:00:00.000Z"],
    [standup, "2025-05-28T09:30:00.000Z"],
    [charter, "2025-04-01T12:00:00.000Z"],
  ]);
  const at = (id: string) => times.get(id)!;
  const seen = (key: string, name: string | null, itemId: string, role = "participant"): Sighting => ({
    key,
    name,
    role,
    itemId,
    at: at(itemId),
  });
  const sightings: Sighting[] = [
    seen("email:alice@acme.test", "Alice Smith", plan, "author"),
    seen("email:dana@acme.test", "Dana Wu", plan),
    seen("email:alice@acme.test", "Alice Smith", standup, "author"),
    seen("slack:T1/U9", "Dana Wu", standup),
    seen("email:erin@acme.test", "Erin Cole", standup),
    seen("email:team@acme.test", null, standup),
    seen("email:bob@acme.test", "Bob Stone", charter, "author"),
  ];
  const hardLinks: HardLink[] = [{ a: "email:dana@acme.test", b: "slack:T1/U9", itemId: standup }];
  const evidence = { sightings, hardLinks, corrections: [], memberEmail: null, truncated: false };
  const view = peopleView(evidence, selfKeysOf(world.alice, ["alice@acme.test"]));
  const asked: SearchQuery[] = [];
  const store = world.store;
  const items = Object.assign(Object.create(store) as typeof store, {
    search: (subjectKey: string, query: SearchQuery) => {
      asked.push(query);
      return store.search(subjectKey, query);
    },
  });
  const tools = createResearchTools({
    subjectKey: world.alice,
    items,
    refs: new RefTable(),
    people: async () => view,
  });
  let n = 0;
  const call = async (name: string, input: unknown) => {
    const result = await tools.execute({ id: `c${++n}`, name, input });
    return { isError: result.isError, body: JSON.parse(result.content) as Record<string, unknown> };
  };
  return { world, view, call, asked, evidence };
}

describe("research tools over people", () => {
  it("top_people answers each person once with their identifiers and items, never the subject, a mailbox or a bot", async () => {
    const { call } = await setup();
    const { body } = await call("top_people", { limit: 10 });
    const people = body.people as { id: string; person: string; identifiers: number; items: number }[];
    expect(people.map((p) => [p.person, p.identifiers, p.items])).toEqual([
      ["Dana Wu", 2, 2],
      ["Bob Stone", 1, 1],
      ["Erin Cole", 1, 1],
    ]);
    expect(people.every((p) => /^p_[0-9a-f]{16}$/.test(p.id))).toBe(true);
    const recent = (await call("top_people", { since: "2025-05-25", limit: 10 })).body.people as {
      person: string;
      items: number;
    }[];
    expect(recent.map((p) => [p.person, p.items])).toEqual([
      ["Dana Wu", 1],
      ["Erin Cole", 1],
    ]);
  });

  it("person(ref) gives the identifiers with their names and the most recent items as cards with refs", async () => {
    const { call } = await setup();
    const { body, isError } = await call("person", { ref: "dana wu" });
    expect(isError).toBeUndefined();
    expect(body).toMatchObject({
      name: "Dana Wu",
      self: false,
      items: 2,
      identifiers: [
        { kind: "email", value: "dana@acme.test", names: ["Dana Wu"] },
        { kind: "slack", value: "T1/U9", names: ["Dana Wu"] },
      ],
    });
    const cards = body.recentItems as { ref: string; title: string }[];
    expect(cards.map((c) => c.title)).toEqual([
      "<untrusted>standup</untrusted>",
      "<untrusted>Payments migration plan</untrusted>",
    ]);
    expect(cards.every((c) => /^[EM]\d+$/.test(c.ref))).toBe(true);
    expect((await call("person", { ref: "email:dana@acme.test" })).body.name).toBe("Dana Wu");
    const unknown = await call("person", { ref: "Zed Nobody" });
    expect(unknown.isError).toBe(true);
    expect(String(unknown.body.error)).toContain("no person matches");
  });

  it("search_items by person searches every identifier of the person", async () => {
    const { call, asked, view } = await setup();
    const dana = view.people.find((p) => p.name === "Dana Wu")!;
    await call("search_items", { query: "roadmap", person: dana.id });
    expect((await asked.at(-1)?.involving)?.identifiers.sort()).toEqual([
      "email:dana@acme.test",
      "slack:T1/U9",
    ]);
    await call("search_items", { query: "roadmap" });
    expect(await asked.at(-1)?.involving).toBeUndefined();
  });

  it("without people, top_people still groups the strings of authors and participants", async () => {
    const world = await agentWorld();
    const tools = createResearchTools({ subjectKey: world.alice, items: world.store, refs: new RefTable() });
    const result = await tools.execute({ id: "c1", name: "top_people", input: { limit: 5 } });
    expect(JSON.parse(result.content).people.length).toBeGreaterThan(0);
    const person = await tools.execute({ id: "c2", name: "person", input: { ref: "Dana" } });
    expect(person.isError).toBe(true);
  });
});

/**
 * A PeopleStore answering setup()'s evidence over another harness's item ids (setup made its own world), and
 * the viewers whose evidence was read.
 */
async function peopleStoreFor(ids: { plan: string; standup: string; charter: string }) {
  const { evidence } = await setup();
  const byOld = new Map([
    [evidence.sightings[0]!.itemId, ids.plan],
    [evidence.sightings[2]!.itemId, ids.standup],
    [evidence.sightings[6]!.itemId, ids.charter],
  ]);
  const read: string[] = [];
  const people: PeopleStore = {
    evidence: async (viewer) => {
      read.push(viewer);
      return {
        ...evidence,
        sightings: evidence.sightings.map((s) => ({ ...s, itemId: byOld.get(s.itemId)! })),
        hardLinks: evidence.hardLinks.map((l) => ({ ...l, itemId: byOld.get(l.itemId)! })),
        memberEmail: "alice@acme.test",
      };
    },
    fingerprint: async () => "unchanged",
    backfill: async () => ({ scanned: 0, derived: 0 }),
    corrections: async () => [],
    addCorrection: async () => {},
    withdrawCorrection: async () => null,
    setMemberEmail: async () => true,
  };
  return { people, read };
}

describe("statement people", () => {
  it("each statement carries the people its cited items name, those in more of them first, never the subject", async () => {
    const { view, world } = await setup();
    const { plan, standup, charter } = world.ids;
    const [both, charterOnly] = withStatementPeople(view, [
      { section: "Key people", text: "Works with Dana on payments", itemIds: [plan, standup] },
      { section: "Role", text: "Engineering manager", itemIds: [charter] },
    ]);
    expect(both?.people?.map((p) => p.name)).toEqual(["Dana Wu", "Erin Cole"]);
    expect(charterOnly?.people).toEqual([
      { id: view.personOf.get("email:bob@acme.test")!.id, name: "Bob Stone" },
    ]);
  });

  it("an accepted run's statements carry the people of their cited items, resolved from the subject's view", async () => {
    const h = await generatorHarness();
    const { people, read } = await peopleStoreFor(h.ids);
    h.llm.push(
      reply.tools([...RESEARCH_TURN, { name: "top_people", input: { limit: 5 } }]),
      reply.memory(GOOD_MEMORY),
    );
    h.judge.push(reply.verdict({ accepted: true, reason: "Supported.", unsupported: [] }));
    const result = await h.run(null, undefined, { deps: { people } });
    expect(result.outcome).toBe("accepted");
    if (result.outcome !== "accepted") return;
    expect(result.statements.map((s) => s.people?.map((p) => p.name))).toEqual([
      ["Bob Stone"],
      ["Dana Wu"],
      ["Dana Wu", "Erin Cole"],
    ]);
    // One read of the subject's people a run, shared by the tools and the statements.
    expect(read).toEqual([h.alice]);
  });
});

describe("a refresh's digest", () => {
  it("names the most active people since the previous memory as persons, each once, never the subject", async () => {
    const h = await generatorHarness();
    const { people } = await peopleStoreFor(h.ids);
    const previous: PreviousMemory = {
      versionId: crypto.randomUUID(),
      markdown: "(not used)",
      generatedAt: new Date("2025-05-01T00:00:00Z"),
      statements: [
        { section: "Current projects", text: "Leads the payments migration", itemIds: [h.ids.plan] },
      ],
    };
    h.llm.push(reply.memory(GOOD_MEMORY));
    h.judge.push(reply.verdict({ accepted: true, reason: "Supported.", unsupported: [] }));
    await h.run(previous, undefined, { deps: { people } });

    const system = h.llm.calls[0]!.system;
    const listed = system.slice(system.indexOf("Most active people:")).split("\n").slice(1, 4);
    // Dana by address (the plan) and by chat account (the standup) is one person of two items; Alice is the
    // subject, team@ a shared mailbox, and Bob's charter occurred before the previous memory.
    expect(listed[0]).toBe("- Dana Wu (2 items)");
    expect(listed[1]).toBe("- Erin Cole (1 items)");
    expect(listed[2]?.startsWith("- ")).toBe(false);
    expect(system).not.toContain("dana@acme.test (");
    expect(system).not.toContain("Alice Smith (");
  });
});
