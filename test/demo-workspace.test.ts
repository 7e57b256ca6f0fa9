import { describe, expect, it } from "vitest";
import {
  type ApiItem,
  DEMO_USER_IDS,
  type DemoUserId,
  demoExpectedFacts,
  demoRefreshBatch,
  demoWorkspace,
} from "../fixtures/demo-workspace";
import { ITEM_KINDS } from "../src/domain/items";
import { newUserId } from "./support/auth";
import { call, ingest } from "./support/items";
import { registerMembers } from "./support/workspaces";

const NOW = new Date("2026-03-10T12:00:00.000Z");
const DAY_MS = 86_400_000;
const MENTION = /@\[([^:\]]+):([^\]]+)\]/g;

const workspace = demoWorkspace(NOW);
const all = DEMO_USER_IDS.flatMap((owner) => workspace.itemsByOwner[owner].map((item) => ({ owner, item })));
const keyOf = (source: string, externalId: string) => `${source}\u0000${externalId}`;

function keysOf(items: ApiItem[]): Set<string> {
  return new Set(items.map((i) => keyOf(i.source, i.externalId)));
}

/** What `user` may see: their own items and the items others shared with them. */
function visibleTo(user: DemoUserId, extra: Partial<Record<DemoUserId, ApiItem[]>> = {}): ApiItem[] {
  return DEMO_USER_IDS.flatMap((owner) =>
    [...workspace.itemsByOwner[owner], ...(extra[owner] ?? [])].filter(
      (item) => owner === user || item.sharedWith?.includes(user),
    ),
  );
}

/** Lower-cased searchable text, as the generated tsvector sees it (title, author, body). */
const textOf = (item: ApiItem) => `${item.title ?? ""} ${item.author ?? ""} ${item.body}`.toLowerCase();

/**
 * A conservative stand-in for English stemming: a term "occurs" if its stem-like prefix appears anywhere
 * in the text, so this over-matches rather than under-matches.
 */
function occurs(term: string, text: string): boolean {
  const stem = term.toLowerCase().replace(/(ing|ed|es|s)$/, "");
  return text.includes(stem.length >= 3 ? stem : term.toLowerCase());
}

function unresolvedTargets(items: ApiItem[], known: Set<string>): string[] {
  const missing: string[] = [];
  for (const item of items) {
    for (const link of item.links ?? []) {
      const key = keyOf(link.source ?? item.source, link.externalId);
      if (!known.has(key)) missing.push(`${item.externalId} -> ${link.source}:${link.externalId}`);
    }
    for (const [, source, externalId] of item.body.matchAll(MENTION)) {
      if (!known.has(keyOf(source!, externalId!)))
        missing.push(`${item.externalId} @ ${source}:${externalId}`);
    }
  }
  return missing;
}

describe("the demo workspace", () => {
  it("is the same for the same anchor date and keeps its external ids for another anchor", () => {
    expect(demoWorkspace(new Date(NOW))).toEqual(workspace);
    expect(demoRefreshBatch(new Date(NOW), "ada")).toEqual(demoRefreshBatch(NOW, "ada"));
    expect(demoExpectedFacts(new Date(NOW))).toEqual(demoExpectedFacts(NOW));

    const later = demoWorkspace(new Date(NOW.getTime() + 3 * DAY_MS));
    for (const owner of DEMO_USER_IDS) {
      expect(keysOf(later.itemsByOwner[owner])).toEqual(keysOf(workspace.itemsByOwner[owner]));
    }
    expect(later.itemsByOwner.ada[0]!.occurredAt).not.toBe(workspace.itemsByOwner.ada[0]!.occurredAt);
  });

  it("has a few hundred items of every kind, each user's fitting one POST /items batch", () => {
    expect(all.length).toBeGreaterThanOrEqual(300);
    expect(new Set(all.map(({ item }) => item.kind))).toEqual(new Set(ITEM_KINDS));
    for (const owner of DEMO_USER_IDS) {
      const items = workspace.itemsByOwner[owner];
      expect(items.length, owner).toBeGreaterThanOrEqual(40);
      expect(items.length, owner).toBeLessThanOrEqual(500);
      expect(new TextEncoder().encode(JSON.stringify({ items })).byteLength).toBeLessThan(5 * 1024 * 1024);
    }
  });

  it("has five users with a role, team, manager and projects, and every item valid per the API", () => {
    expect(workspace.users.map((u) => u.id)).toEqual([...DEMO_USER_IDS]);
    for (const user of workspace.users) {
      expect(user.role && user.team && user.manager && user.email).toBeTruthy();
      expect(user.projects.length).toBeGreaterThan(0);
    }
    expect(workspace.users.find((u) => u.id === "ada")!.reports).toContain("Ben Castillo");

    const allowedKeys = new Set([
      "source",
      "externalId",
      "kind",
      "title",
      "body",
      "author",
      "participants",
      "occurredAt",
      "url",
      "metadata",
      "sharedWith",
      "links",
    ]);
    for (const { owner, item } of all) {
      const where = `${owner} ${item.source}:${item.externalId}`;
      expect(
        Object.keys(item).filter((k) => !allowedKeys.has(k)),
        where,
      ).toEqual([]);
      expect(item.source.trim(), where).not.toBe("");
      expect(item.externalId.trim(), where).not.toBe("");
      expect(ITEM_KINDS, where).toContain(item.kind);
      expect(item.body.trim().length, where).toBeGreaterThan(0);
      expect(new Date(item.occurredAt).toISOString(), where).toBe(item.occurredAt);
      const at = Date.parse(item.occurredAt);
      expect(at, where).toBeLessThanOrEqual(NOW.getTime());
      expect(at, where).toBeGreaterThan(NOW.getTime() - 61 * DAY_MS);
      if (item.url !== undefined) expect(item.url, where).toMatch(/^https:\/\//);
      for (const p of item.participants ?? []) expect(p.trim(), where).not.toBe("");
    }
  });

  it("has external ids unique per owner and source", () => {
    for (const owner of DEMO_USER_IDS) {
      const keys = workspace.itemsByOwner[owner].map((i) => keyOf(i.source, i.externalId));
      expect(new Set(keys).size, owner).toBe(keys.length);
    }
  });

  it("links and @-mentions only items of the same owner, and has both kinds plus threads", () => {
    for (const owner of DEMO_USER_IDS) {
      const items = workspace.itemsByOwner[owner];
      expect(unresolvedTargets(items, keysOf(items)), owner).toEqual([]);
      expect(
        items.some((i) => (i.links ?? []).length > 0),
        owner,
      ).toBe(true);
      expect(
        items.some((i) => MENTION.test(i.body)),
        owner,
      ).toBe(true);
      MENTION.lastIndex = 0;
    }
    const emailReplies = all.filter(({ item }) => item.kind === "email" && item.metadata?.inReplyTo);
    const chatReplies = all.filter(
      ({ item }) => item.kind === "message" && item.links?.some((l) => l.kind === "reply"),
    );
    expect(emailReplies.length).toBeGreaterThan(10);
    expect(chatReplies.length).toBeGreaterThan(10);
    for (const { item } of emailReplies) expect(item.metadata?.threadId).toEqual(expect.any(String));
  });

  it("shares items only with other demo users, including a calendar event and docs", () => {
    const ids = new Set<string>(DEMO_USER_IDS);
    const shared = all.filter(({ item }) => (item.sharedWith ?? []).length > 0);
    for (const { owner, item } of shared) {
      for (const user of item.sharedWith!) {
        expect(ids.has(user), `${item.externalId} shared with ${user}`).toBe(true);
        expect(user).not.toBe(owner);
      }
    }
    expect(shared.some(({ item }) => item.kind === "event")).toBe(true);
    expect(shared.some(({ item }) => item.kind === "doc")).toBe(true);
    const goNoGo = workspace.itemsByOwner.ada.find((i) => i.externalId === "evt-kestrel-gonogo")!;
    expect(goNoGo.sharedWith).toEqual(["ben", "chloe"]);
  });

  it("maps user ids everywhere when asked to, for tests that share a database", () => {
    const userIds = { ada: "ada-x", ben: "ben-x", chloe: "chloe-x", dev: "dev-x", eli: "eli-x" };
    const mapped = demoWorkspace(NOW, { userIds });
    expect(mapped.users.map((u) => u.id)).toEqual(Object.values(userIds));
    const sharedIds = DEMO_USER_IDS.flatMap((o) => mapped.itemsByOwner[o].flatMap((i) => i.sharedWith ?? []));
    expect(sharedIds.length).toBeGreaterThan(0);
    expect(sharedIds.every((id) => id.endsWith("-x"))).toBe(true);
    expect(demoRefreshBatch(NOW, "ada", { userIds }).flatMap((i) => i.sharedWith ?? [])).toContain("ben-x");
  });
});

describe("the refresh batch", () => {
  it("gives every user 10 to 20 new items from the last day whose links resolve", () => {
    for (const owner of DEMO_USER_IDS) {
      const batch = demoRefreshBatch(NOW, owner);
      const existing = keysOf(workspace.itemsByOwner[owner]);
      expect(batch.length, owner).toBeGreaterThanOrEqual(10);
      expect(batch.length, owner).toBeLessThanOrEqual(20);
      for (const item of batch) {
        expect(existing.has(keyOf(item.source, item.externalId)), item.externalId).toBe(false);
        const at = Date.parse(item.occurredAt);
        expect(at).toBeLessThanOrEqual(NOW.getTime());
        expect(at).toBeGreaterThan(NOW.getTime() - DAY_MS);
      }
      const known = new Set([...existing, ...keysOf(batch)]);
      expect(unresolvedTargets(batch, known), owner).toEqual([]);
    }
    expect(() => demoRefreshBatch(NOW, "mallory")).toThrow(/not a demo user/);
  });

  it("moves the Kestrel cut-over by a week for everyone on the project", () => {
    const [before] = demoExpectedFacts(NOW).ada.facts.filter((f) => f.keywords.includes("cut-over"));
    const [after] = demoExpectedFacts(NOW).ada.afterRefresh.filter((f) => f.keywords.includes("cut-over"));
    expect(before!.keywords[1]).not.toBe(after!.keywords[1]);
    for (const owner of ["ada", "ben", "chloe", "dev"] as const) {
      const texts = demoRefreshBatch(NOW, owner).map(textOf).join("\n");
      expect(texts, owner).toContain(after!.keywords[1]!.toLowerCase());
    }
  });
});

describe("the expected facts", () => {
  const expected = demoExpectedFacts(NOW);

  it("name search targets that only they match among what the user may see", () => {
    for (const user of DEMO_USER_IDS) {
      expect(expected[user].searches.length, user).toBeGreaterThanOrEqual(2);
      const visible = visibleTo(user);
      for (const s of expected[user].searches) {
        const terms = s.query.split(/\s+/);
        const matching = visible.filter((item) => terms.every((term) => occurs(term, textOf(item))));
        expect(
          matching.map((i) => `${i.source}:${i.externalId}`),
          `${user}: "${s.query}"`,
        ).toEqual([`${s.source}:${s.externalId}`]);
      }
    }
  });

  it("cite items the user may see that contain every keyword of the fact", () => {
    for (const user of DEMO_USER_IDS) {
      expect(expected[user].facts.length, user).toBeGreaterThanOrEqual(5);
      const refresh = { [user]: demoRefreshBatch(NOW, user) };
      for (const [facts, visible] of [
        [expected[user].facts, visibleTo(user)],
        [expected[user].afterRefresh, visibleTo(user, refresh)],
      ] as const) {
        for (const fact of facts) {
          expect(fact.evidence.length, fact.fact).toBeGreaterThan(0);
          for (const ref of fact.evidence) {
            const item = visible.find((i) => i.source === ref.source && i.externalId === ref.externalId);
            expect(item, `${user}: ${fact.fact} <- ${ref.source}:${ref.externalId}`).toBeDefined();
            for (const keyword of fact.keywords) {
              expect(textOf(item!), `${user}: ${fact.fact} <- ${ref.externalId}`).toContain(
                keyword.toLowerCase(),
              );
            }
          }
        }
      }
    }
  });
});

describe("the demo workspace through POST /items and GET /items", () => {
  it("ingests every user's batch, resolves its links, and ranks the expected items first", {
    timeout: 120_000,
  }, async () => {
    const userIds = Object.fromEntries(DEMO_USER_IDS.map((key) => [key, newUserId(key)])) as Record<
      DemoUserId,
      string
    >;
    const mapped = demoWorkspace(NOW, { userIds });
    await registerMembers(...Object.values(userIds));
    for (const user of mapped.users) {
      const items = mapped.itemsByOwner[user.key];
      const outcomes = await ingest(user.id, items);
      expect(outcomes.map((o) => o.status)).toEqual(items.map(() => "created"));
    }
    const again = await ingest(userIds.ada, mapped.itemsByOwner.ada);
    expect(new Set(again.map((o) => o.status))).toEqual(new Set(["unchanged"]));

    const planOutcome = again.find((o) => o.externalId === "doc-kestrel-plan")!;
    const plan = (await (await call(userIds.ada, "GET", `/items/${planOutcome.id}`)).json()) as {
      links: { direction: string; item: { externalId: string } }[];
    };
    expect(plan.links.filter((l) => l.direction === "incoming").map((l) => l.item.externalId)).toContain(
      "evt-kestrel-review",
    );

    const expected = demoExpectedFacts(NOW);
    for (const key of DEMO_USER_IDS) {
      for (const s of expected[key].searches) {
        const res = await call(userIds[key], "GET", `/items?q=${encodeURIComponent(s.query)}&limit=5`);
        expect(res.status).toBe(200);
        const page = (await res.json()) as { items: { source: string; externalId: string }[] };
        expect(page.items.map((i) => `${i.source}:${i.externalId}`)[0], `${key}: "${s.query}"`).toBe(
          `${s.source}:${s.externalId}`,
        );
      }
    }

    const refresh = demoRefreshBatch(NOW, "ada", { userIds });
    const refreshed = await ingest(userIds.ada, refresh);
    expect(refreshed.map((o) => o.status)).toEqual(refresh.map(() => "created"));
  });
});
