/**
 * Which changed items touch a carried statement: threads, @-link paths and people with shared terms, over a
 * small hand-written item graph (no database: the finder reads only edgesOf and getMany).
 */
import { describe, expect, it } from "vitest";
import {
  combineFinders,
  linkedEvidenceFinder,
  type RelatedEvidenceFinder,
  threadKey,
} from "../../src/agent/related-evidence";
import type { Item, ItemEdge, ItemStore } from "../../src/domain/items";

let n = 0;
const item = (overrides: Partial<Item>): Item => ({
  id: `item-${++n}`,
  ownerId: "ada",
  source: "gmail",
  externalId: `x-${n}`,
  kind: "email",
  title: null,
  body: "",
  author: null,
  participants: [],
  occurredAt: new Date("2025-03-01T10:00:00Z"),
  createdAt: new Date("2025-03-01T10:00:00Z"),
  updatedAt: new Date("2025-03-01T10:00:00Z"),
  url: null,
  metadata: {},
  sharedWith: [],
  ...overrides,
});

function graph(items: Item[], edges: ItemEdge[] = []): Pick<ItemStore, "edgesOf" | "getMany"> {
  return {
    edgesOf: async (_subject, ids) => edges.filter((e) => ids.includes(e.fromId) || ids.includes(e.toId)),
    getMany: async (_subject, ids) => items.filter((i) => ids.includes(i.id)),
  };
}

const cutover = item({
  title: "Kestrel cut-over date",
  body: "The Kestrel cut-over is on 3 March.",
  author: "Ben Castillo <ben@northwind.test>",
  participants: ["Ada Okafor", "Chloe Martin"],
  metadata: { threadId: "thread-date" },
});
const statement = { index: 4, text: "The Kestrel cut-over is on 3 March", itemIds: [cutover.id] };

async function relatedTo(changed: Item, edges: ItemEdge[] = [], others: Item[] = []) {
  const finder = linkedEvidenceFinder(graph([cutover, changed, ...others], edges));
  return finder.findRelated({
    subjectKey: "ada",
    statements: [statement],
    cited: new Map([[cutover.id, cutover]]),
    changed: [changed],
  });
}

describe("the related-evidence finder", () => {
  it("relates a reply to the statement's cited item (a reply link), whatever it says", async () => {
    const reply = item({ kind: "message", body: "Noted, see you then.", title: "#random" });
    const found = await relatedTo(reply, [{ fromId: reply.id, toId: cutover.id, kind: "reply" }]);
    expect(found).toEqual(new Map([[4, [{ itemId: reply.id, via: "link" }]]]));
  });

  it("follows a link either way: the cited item mentioning the changed one counts too", async () => {
    const note = item({ kind: "note", body: "Agenda." });
    const found = await relatedTo(note, [{ fromId: cutover.id, toId: note.id, kind: "mention" }]);
    expect(found.get(4)).toEqual([{ itemId: note.id, via: "link" }]);
  });

  it("relates an item that links into the cited item's thread", async () => {
    const sibling = item({ metadata: { threadId: "thread-date" }, body: "Re: earlier" });
    const moved = item({ title: "Moved", body: "See the thread." });
    const found = await relatedTo(
      moved,
      [{ fromId: moved.id, toId: sibling.id, kind: "reference" }],
      [sibling],
    );
    expect(found.get(4)).toEqual([{ itemId: moved.id, via: "link" }]);
  });

  it("relates an item of the same thread", async () => {
    const later = item({ metadata: { threadId: "thread-date" }, body: "Anything." });
    expect((await relatedTo(later)).get(4)).toEqual([{ itemId: later.id, via: "thread" }]);
  });

  it("relates an item naming one of the same people and sharing two distinctive terms", async () => {
    const chat = item({
      kind: "message",
      title: "#kestrel",
      body: "Heads-up: the Kestrel cut-over is now on 10 March.",
      author: "Chloe Martin",
    });
    expect((await relatedTo(chat)).get(4)).toEqual([{ itemId: chat.id, via: "people_and_terms" }]);
  });

  it("does not relate the same terms from someone else, one shared term, or only the subject in common", async () => {
    const stranger = item({ body: "Kestrel cut-over moved.", author: "Mallory <m@evil.test>" });
    const oneTerm = item({ body: "Kestrel looks good.", author: "Chloe Martin" });
    const onlyAda = item({ body: "Kestrel cut-over moved.", author: "Ada Okafor", participants: ["ada"] });
    for (const changed of [stranger, oneTerm, onlyAda]) expect(await relatedTo(changed)).toEqual(new Map());
  });

  it("never relates an item to a statement that cites it (an updated cited item is judged anyway)", async () => {
    const found = await linkedEvidenceFinder(graph([cutover])).findRelated({
      subjectKey: "ada",
      statements: [statement],
      cited: new Map([[cutover.id, cutover]]),
      changed: [cutover],
    });
    expect(found).toEqual(new Map());
  });

  it("names at most two newer items per statement, links first", async () => {
    const replies = [1, 2, 3, 4].map(() => item({ kind: "message", body: "ok" }));
    const thread = item({ metadata: { threadId: "thread-date" } });
    const finder = linkedEvidenceFinder(
      graph(
        [cutover, thread, ...replies],
        replies.map((r) => ({ fromId: r.id, toId: cutover.id, kind: "reply" })),
      ),
    );
    const found = await finder.findRelated({
      subjectKey: "ada",
      statements: [statement],
      cited: new Map([[cutover.id, cutover]]),
      changed: [thread, ...replies],
    });
    expect(found.get(4)?.map((r) => r.via)).toEqual(["link", "link"]);
  });

  it("looks at every carried statement, and bounds only how many related ones go to the judge", async () => {
    const reply = item({ kind: "message", body: "ok" });
    const finder = linkedEvidenceFinder(
      graph([cutover, reply], [{ fromId: reply.id, toId: cutover.id, kind: "reply" }]),
    );
    const unrelated = Array.from({ length: 40 }, (_, i) => ({
      index: i,
      text: `Other ${i}`,
      itemIds: ["nowhere"],
    }));
    const many = [...unrelated, ...Array.from({ length: 30 }, (_, i) => ({ ...statement, index: 40 + i }))];
    const found = await finder.findRelated({
      subjectKey: "ada",
      statements: many,
      cited: new Map([[cutover.id, cutover]]),
      changed: [reply],
    });
    expect(found.size).toBe(24);
    expect([...found.keys()][0]).toBe(40);
  });

  it("combines finders (a vector finder can join later): relations merged per statement, best reason kept", async () => {
    const a: RelatedEvidenceFinder = {
      findRelated: async () => new Map([[0, [{ itemId: "x", via: "thread" }]]]),
    };
    const b: RelatedEvidenceFinder = {
      findRelated: async () =>
        new Map([
          [0, [{ itemId: "x", via: "link" }]],
          [1, [{ itemId: "y", via: "people_and_terms" }]],
        ]),
    };
    const found = await combineFinders(a, b).findRelated({
      subjectKey: "s",
      statements: [],
      cited: new Map(),
      changed: [],
    });
    expect(found).toEqual(
      new Map([
        [0, [{ itemId: "x", via: "link" }]],
        [1, [{ itemId: "y", via: "people_and_terms" }]],
      ]),
    );
  });

  it("keys threads by threadId, a Slack thread, or an email's subject without Re:/Fwd:", () => {
    expect(threadKey(item({ metadata: { threadId: "t1" } }))).toBe("id:t1");
    expect(threadKey(item({ kind: "message", metadata: { channelId: "C1", threadTs: "17.1" } }))).toBe(
      "slack:C1:17.1",
    );
    expect(threadKey(item({ title: "Re: Fwd: Kestrel plan" }))).toBe("subject:kestrel plan");
    expect(threadKey(item({ kind: "message", title: "#kestrel" }))).toBeNull();
  });
});
