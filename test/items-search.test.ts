import { beforeAll, describe, expect, it } from "vitest";
import { newUserId } from "./support/auth";
import { call, ingest, item, json, warmUpWorker } from "./support/items";
import { registerMembers } from "./support/workspaces";

beforeAll(warmUpWorker);

interface Hit {
  id: string;
  externalId: string;
  kind: string;
  title: string | null;
  author: string | null;
  occurredAt: string;
  snippet: string;
  rank: number;
}
interface Page {
  items: Hit[];
  nextCursor: string | null;
}

const search = async (user: string, params: string) => {
  const res = await call(user, "GET", `/items?${params}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return json<Page>(res);
};
const ids = (page: Page) => page.items.map((h) => h.externalId);
const UUID = "8d0f6a3e-2a1b-4c5d-9e8f-0a1b2c3d4e5f";
const cursorOf = (value: object) =>
  btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

/** A small, realistic workspace: the payments migration thread is what a good search should surface. */
const workspace = () => [
  item({
    externalId: "e-payments",
    title: "Payments migration: cut-over plan and deadline",
    body: "Team, the payments migration to the new ledger cuts over on 3 March. Priya owns the rollback plan; I will confirm the deadline with finance by Friday.",
    author: "Sam Okafor <sam@acme.io>",
    participants: ["Priya Raman <priya@acme.io>", "Finance <finance@acme.io>"],
    occurredAt: "2026-02-20T09:00:00Z",
  }),
  item({
    externalId: "m-lunch",
    source: "slack",
    kind: "message",
    title: undefined,
    body: "Anyone up for lunch? The new ramen place near the office opened.",
    author: "Jo Park",
    participants: [],
    occurredAt: "2026-02-21T12:00:00Z",
  }),
  item({
    externalId: "t-ledger",
    source: "linear",
    kind: "task",
    title: "Backfill ledger entries",
    body: "Part of the payments work: backfill historical ledger entries before migration.",
    author: "Priya Raman <priya@acme.io>",
    participants: ["Sam Okafor <sam@acme.io>"],
    occurredAt: "2026-02-18T15:30:00Z",
  }),
  item({
    externalId: "c-standup",
    source: "zoom",
    kind: "call",
    title: "Weekly standup",
    body: "Discussed hiring, the offsite agenda and a brief mention of payments.",
    author: "Lee Chen",
    participants: ["Sam Okafor <sam@acme.io>", "Jo Park"],
    occurredAt: "2026-02-19T16:00:00Z",
  }),
  item({
    externalId: "d-offsite",
    source: "gdrive",
    kind: "doc",
    title: "Offsite agenda",
    body: "Day one: strategy. Day two: team building and the hiring plan.",
    author: "Lee Chen",
    participants: [],
    occurredAt: "2026-01-10T08:00:00Z",
  }),
];

describe("GET /items search", () => {
  it("ranks the item that is about the query first among realistic ones", async () => {
    const user = newUserId();
    await ingest(user, workspace());
    const page = await search(user, "q=payments");
    expect(ids(page)[0]).toBe("e-payments");
    expect(ids(page).sort()).toEqual(["c-standup", "e-payments", "t-ledger"]);
    expect(page.items[0]!.rank).toBeGreaterThan(page.items[1]!.rank);
    expect(page.items[0]!.snippet).toMatch(/payments migration/i);
    // The item with every word first, then those with fewer of them.
    const several = await search(user, "q=payments%20migration%20deadline");
    expect(ids(several)).toEqual(["e-payments", "t-ledger", "c-standup"]);
    // "or" is a word, not an operator: any item with one of the words is found, the rarer word weighing more.
    const either = await search(user, "q=payments%20or%20ramen");
    expect(ids(either)[0]).toBe("m-lunch");
    expect(ids(either)).toContain("e-payments");
  });

  it("weights a match in the title above a match in the body", async () => {
    const user = newUserId();
    await ingest(user, [
      item({ externalId: "in-body", title: "Weekly notes", body: "Some words about the quarterly roadmap." }),
      item({ externalId: "in-title", title: "Quarterly roadmap", body: "Some words about planning." }),
    ]);
    expect(ids(await search(user, "q=roadmap"))).toEqual(["in-title", "in-body"]);
  });

  it("supports web-search syntax: quoted phrases and exclusions", async () => {
    const user = newUserId();
    await ingest(user, workspace());
    expect(ids(await search(user, `q=${encodeURIComponent('"rollback plan"')}`))).toEqual(["e-payments"]);
    expect(ids(await search(user, `q=${encodeURIComponent("payments -ledger")}`))).toEqual(["c-standup"]);
  });

  it("lists everything newest first without a query", async () => {
    const user = newUserId();
    await ingest(user, workspace());
    const page = await search(user, "");
    expect(ids(page)).toEqual(["m-lunch", "e-payments", "c-standup", "t-ledger", "d-offsite"]);
    expect(page.nextCursor).toBeNull();
    expect(page.items[0]!.snippet).toBe("Anyone up for lunch? The new ramen place near the office opened.");
  });

  it("filters by kind, repeated or comma-separated", async () => {
    const user = newUserId();
    await ingest(user, workspace());
    expect(ids(await search(user, "kind=task"))).toEqual(["t-ledger"]);
    expect(ids(await search(user, "kind=task,doc"))).toEqual(["t-ledger", "d-offsite"]);
    expect(ids(await search(user, "kind=task&kind=call&q=payments"))).toHaveLength(2);
  });

  it("filters by time: since is inclusive, until exclusive", async () => {
    const user = newUserId();
    await ingest(user, workspace());
    expect(ids(await search(user, "since=2026-02-19T16:00:00Z&until=2026-02-21T12:00:00Z"))).toEqual([
      "e-payments",
      "c-standup",
    ]);
    expect(ids(await search(user, "until=2026-02-01"))).toEqual(["d-offsite"]);
  });

  it("filters by people, matching author or participants without regard to case", async () => {
    const user = newUserId();
    await ingest(user, workspace());
    expect(ids(await search(user, "people=PRIYA"))).toEqual(["e-payments", "t-ledger"]);
    expect(ids(await search(user, "people=jo%20park"))).toEqual(["m-lunch", "c-standup"]);
    expect(ids(await search(user, "people=lee%20chen,finance@acme.io"))).toEqual([
      "e-payments",
      "c-standup",
      "d-offsite",
    ]);
    expect(ids(await search(user, "people=100%25"))).toEqual([]);
    // The names are searched joined by newlines (for the index): a name spanning two of them is no match.
    const across = encodeURIComponent("okafor <sam@acme.io>\npriya");
    expect(ids(await search(user, `people=${across}`))).toEqual([]);
  });

  it("pages through ranked results with a cursor, without gaps or repeats", async () => {
    const user = newUserId();
    const items = Array.from({ length: 7 }, (_, i) =>
      item({
        externalId: `n-${i}`,
        title: `Invoice ${i}`,
        body: `invoice ${"invoice ".repeat(i % 3)}details`,
        occurredAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
      }),
    );
    await ingest(user, items);
    const everything = ids(await search(user, "q=invoice&limit=100"));
    expect(everything).toHaveLength(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await search(user, `q=invoice&limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...ids(page));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(everything);
  });

  it("ranks every match of a broad query however old, and pages through all of them even when items arrive in between", async () => {
    const user = newUserId();
    const minute = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString();
    const total = 320;
    const better = total - 100;
    // Every item matches "ledger" alike, but the oldest is the best match and one recent one is better
    // than the rest; ties are ordered newest first.
    const items = Array.from({ length: total }, (_, i) =>
      item({
        externalId: `l-${i}`,
        title:
          i === 0 ? "Ledger ledger ledger" : i === better ? "Ledger" : `Note ${String(i).padStart(3, "0")}`,
        body: "Reconciled the ledger entries.",
        occurredAt: minute(i),
      }),
    );
    await ingest(user, items.slice(0, total / 2));
    await ingest(user, items.slice(total / 2));

    const first = await search(user, "q=ledger&limit=100");
    expect(ids(first).slice(0, 5)).toEqual([
      "l-0",
      `l-${better}`,
      `l-${total - 1}`,
      `l-${total - 2}`,
      `l-${total - 3}`,
    ]);

    // A new match arriving between pages neither pushes a ranked item out nor repeats one.
    await ingest(user, [
      item({ externalId: "late", title: "Late note", body: "The ledger again.", occurredAt: minute(100.5) }),
    ]);
    const seen = [...ids(first)];
    let cursor = first.nextCursor;
    for (let pages = 1; cursor && pages < 20; pages++) {
      const page: Page = await search(user, `q=ledger&limit=100&cursor=${cursor}`);
      seen.push(...ids(page));
      cursor = page.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => id !== "late").sort()).toEqual(items.map((i) => i.externalId).sort());
  });

  it("ranks the newest 1,000 matches of a word too common to rank all of, found either way", async () => {
    const user = newUserId();
    const minute = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString();
    // 1,400 items: "memo" on all of them, "ledger" on four in five (1,120). Neither can be ranked whole (1,000 at
    // most), so each ranks its newest 1,000 matches: the best match among them first, an older better one not at
    // all. The newest 1,000 items hold 800 "ledger", estimated at 1,120 of 1,400: read through the text index
    // (1,120² < 1,000 × 1,400); "memo" is read by walking the items newest first (1,400² >= 1,000 × 1,400).
    const total = 1400;
    const hasLedger = (i: number) => i % 5 !== 4;
    const byWren = (i: number) => i % 7 !== 0;
    const items = Array.from({ length: total }, (_, i) =>
      item({
        externalId: `n-${i}`,
        title:
          i === 0
            ? "Ledger ledger ledger memo memo memo"
            : i === 1000
              ? "Ledger ledger"
              : i === 904
                ? "Memo memo"
                : `Note ${String(i).padStart(4, "0")}`,
        body: hasLedger(i) ? "A ledger memo." : "A memo.",
        // A person on more items than namesAnyOf reads into an array (COMMON_PERSON_ITEMS): read row by row.
        // The other author's name is as long, so the lengths BM25 normalises by stay alike.
        author: byWren(i) ? "Wren Okafor <wren@acme.example>" : "Kai Doe <kai.doe0@acme.example>",
        occurredAt: minute(i),
      }),
    );
    for (let at = 0; at < total; at += 500) await ingest(user, items.slice(at, at + 500));

    const ledger = await search(user, "q=ledger&limit=100");
    expect(ids(ledger).slice(0, 3)).toEqual(["n-1000", "n-1398", "n-1397"]);
    // The items without "ledger" are shorter, so they match "memo" better than the rest.
    const memo = await search(user, "q=memo&limit=100");
    expect(ids(memo).slice(0, 3)).toEqual(["n-904", "n-1399", "n-1394"]);
    // Page through both: exactly the newest 1,000 matches, and never the oldest one.
    for (const [q, newest] of [
      ["ledger", items.filter((_, i) => hasLedger(i)).slice(-1000)],
      ["memo", items.slice(-1000)],
    ] as const) {
      const seen: string[] = [];
      let cursor: string | null = "";
      for (let pages = 0; cursor !== null && pages < 20; pages++) {
        const page: Page = await search(user, `q=${q}&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
        seen.push(...ids(page));
        cursor = page.nextCursor;
      }
      expect(seen.sort()).toEqual(newest.map((i) => i.externalId).sort());
    }
    // Within a time window, and within one kind, "memo" is walked newest first in an index's order: the
    // newest 1,000 matches that pass the filter (the window ends before the newest 400 items).
    const pages = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = "";
      for (let n = 0; cursor !== null && n < 20; n++) {
        const page: Page = await search(user, `${query}&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
        seen.push(...ids(page));
        cursor = page.nextCursor;
      }
      return seen.sort();
    };
    const externalIds = (list: typeof items) => list.map((i) => i.externalId).sort();
    const windowed = await pages(`q=memo&until=${encodeURIComponent(minute(1000))}`);
    expect(windowed).toEqual(externalIds(items.slice(0, 1000)));
    expect(await pages("q=memo&kind=email")).toEqual(externalIds(items.slice(-1000)));
    expect(await pages("q=memo&kind=note")).toEqual([]);
    // The common person, by address and as a filter of a ranked search: the very items that name her.
    const wren = items.filter((_, i) => byWren(i)).map((i) => i.externalId);
    expect(ids(await search(user, "people=wren%40acme.example&limit=5"))).toEqual(wren.slice(-5).reverse());
    const memoByWren = await search(user, "q=memo&people=wren%40acme.example&limit=100");
    expect(ids(memoByWren)[0]).toBe("n-904");
    expect(ids(memoByWren).every((id) => wren.includes(id))).toBe(true);
  });

  it("counts the statistics that shape a ranking over the viewer's items only", async () => {
    const [viewer, colleague, stranger] = [newUserId(), newUserId(), newUserId()];
    await registerMembers(viewer, colleague);
    await ingest(viewer, [
      item({ externalId: "v-budget", body: "The kestrel budget was approved." }),
      item({ externalId: "v-kestrel", body: "Kestrel status: on track." }),
      item({ externalId: "v-other", body: "Lunch on Friday." }),
    ]);
    const ranks = async () =>
      (await search(viewer, "q=kestrel%20budget")).items.map((h) => [h.externalId, h.rank] as const);
    const before = await ranks();
    expect(before.map(([id]) => id)).toEqual(["v-budget", "v-kestrel"]);
    // Items the viewer cannot see, full of the query's words: a colleague's unshared ones, another user's
    // in the same workspace, and items shared with someone else. The scores must not move at all.
    const noise = (prefix: string, sharedWith?: string[]) =>
      Array.from({ length: 30 }, (_, i) =>
        item({
          externalId: `${prefix}-${i}`,
          body: `Kestrel kestrel notes ${i}`,
          ...(sharedWith ? { sharedWith } : {}),
        }),
      );
    await ingest(colleague, noise("c"));
    await ingest(stranger, noise("s"));
    await ingest(colleague, noise("o", [stranger]));
    expect(await ranks()).toEqual(before);
    // The same items shared with the viewer do count (so this test can fail): "kestrel" becomes common and
    // weighs less, and the shared items are found.
    await ingest(colleague, noise("c", [viewer]));
    const after = await search(viewer, "q=kestrel%20budget");
    expect(after.items[0]!.externalId).toBe("v-budget");
    expect(after.items[0]!.rank).not.toBe(before[0]![1]);
    expect(after.items.map((h) => h.externalId)).toContain("c-0");
  });

  it("merges the viewer's own items and those shared with them in one order, page after page", async () => {
    const [viewer, colleague] = [newUserId(), newUserId()];
    await registerMembers(viewer, colleague);
    const hour = (n: number) => new Date(Date.UTC(2026, 2, 1, n)).toISOString();
    // Own and shared items alternate in time; one of the colleague's is not shared and must never appear.
    await ingest(
      viewer,
      [0, 2, 4, 6, 8].map((n) =>
        item({ externalId: `own-${n}`, title: "Status", body: `Atlas status ${n}`, occurredAt: hour(n) }),
      ),
    );
    await ingest(colleague, [
      ...[1, 3, 5, 7].map((n) =>
        item({
          externalId: `shared-${n}`,
          title: "Status",
          body: `Atlas status ${n}`,
          occurredAt: hour(n),
          sharedWith: [viewer],
        }),
      ),
      item({ externalId: "private-9", body: "Atlas status 9", occurredAt: hour(9) }),
    ]);
    const newestFirst = [
      "own-8",
      "shared-7",
      "own-6",
      "shared-5",
      "own-4",
      "shared-3",
      "own-2",
      "shared-1",
      "own-0",
    ];
    for (const query of ["limit=2", "q=atlas&limit=2"]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Page = await search(viewer, cursor ? `${query}&cursor=${cursor}` : query);
        seen.push(...ids(page));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen, query).toEqual(newestFirst);
    }
  });

  it("takes a long document's snippet from around its first match", async () => {
    const user = newUserId();
    const filler = "Routine status update without anything notable. ".repeat(600);
    await ingest(user, [
      item({
        externalId: "long",
        title: "Weekly notes",
        body: `${filler}The quarterly roadmap review moved to Friday. ${filler}`,
      }),
    ]);
    const page = await search(user, "q=roadmap");
    expect(ids(page)).toEqual(["long"]);
    expect(page.items[0]!.snippet).toMatch(/quarterly roadmap review moved to Friday/);
  });

  it("pages through unranked results with a cursor, and defaults to 20 a page", async () => {
    const user = newUserId();
    const items = Array.from({ length: 25 }, (_, i) =>
      item({ externalId: `n-${i}`, occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 5)).toISOString() }),
    );
    await ingest(user, items);
    const first = await search(user, "");
    expect(first.items).toHaveLength(20);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await search(user, `cursor=${first.nextCursor}`);
    expect(second.items).toHaveLength(5);
    expect(second.nextCursor).toBeNull();
    expect(new Set([...ids(first), ...ids(second)]).size).toBe(25);
  });

  it("answers 400 for bad parameters", async () => {
    const user = newUserId();
    await ingest(user, workspace());
    const unranked = (await search(user, "limit=1")).nextCursor!;
    for (const params of [
      "kind=fax",
      "since=yesterday",
      "until=2026-13-01",
      "since=2026-02-02&until=2026-02-01",
      "limit=0",
      "limit=101",
      "limit=ten",
      "cursor=not-a-cursor",
      `q=payments&cursor=${unranked}`,
      // A ranked cursor without statistics, one whose df exceeds its N, and an unranked one with statistics.
      `q=payments&cursor=${cursorOf({ r: 0.1, t: "2026-02-01T00:00:00Z", i: UUID })}`,
      `q=payments&cursor=${cursorOf({ r: 0.1, t: "2026-02-01T00:00:00Z", i: UUID, k: [3, 100, 4] })}`,
      `cursor=${cursorOf({ t: "2026-02-01T00:00:00Z", i: UUID, k: [3, 100, 1] })}`,
      `q=${"x".repeat(501)}`,
    ]) {
      const res = await call(user, "GET", `/items?${params}`);
      expect(res.status, params).toBe(400);
      expect((await json<{ error: { code: string } }>(res)).error.code).toBe("bad_request");
    }
  });

  it("finds nothing for a query with no searchable words", async () => {
    const user = newUserId();
    await ingest(user, workspace());
    expect((await search(user, "q=the")).items).toEqual([]);
  });
});
