import { afterEach, describe, expect, it } from "vitest";
import {
  type ApiItem,
  DEMO_TEAM_IDS,
  DEMO_USER_IDS,
  type DemoTeamId,
  type DemoUserId,
  demoExpectedFacts,
  demoRefreshBatch,
  demoTeams,
  demoWorkspace,
} from "../fixtures/demo-workspace";
import { ITEM_KINDS } from "../src/domain/item-schema";
import { teamKey } from "../src/domain/workspaces";
import { newUserId } from "./support/auth";
import { type MemoryJson, MINUTE, setAgentClock } from "./support/e2e";
import { FakeClock } from "./support/fakes/fake-clock";
import { call, ingest, json } from "./support/items";
import { clearAlarm, fetchSettled, ingestSettled, runAlarm } from "./support/memory-agent";
import { registerMembers } from "./support/workspaces";

const NOW = new Date("2026-03-10T12:00:00.000Z");
const DAY_MS = 86_400_000;
const MENTION = /@\[([^:\]]+):([^\]]+)\]/g;

const workspace = demoWorkspace(NOW);
const teams = demoTeams(NOW);
const all = DEMO_USER_IDS.flatMap((owner) => workspace.itemsByOwner[owner].map((item) => ({ owner, item })));
const keyOf = (source: string, externalId: string) => `${source}\u0000${externalId}`;

function keysOf(items: ApiItem[]): Set<string> {
  return new Set(items.map((i) => keyOf(i.source, i.externalId)));
}

/** What `user` may see: their own items and the items others shared with them (or with their teams). */
function visibleTo(
  user: DemoUserId,
  extra: Partial<Record<DemoUserId, ApiItem[]>> = {},
  withTeams = false,
): ApiItem[] {
  const personal = DEMO_USER_IDS.flatMap((owner) =>
    [...workspace.itemsByOwner[owner], ...(extra[owner] ?? [])].filter(
      (item) => owner === user || item.sharedWith?.includes(user),
    ),
  );
  if (!withTeams) return personal;
  const teamItems = teams
    .filter((team) => team.memberKeys.includes(user))
    .flatMap((team) => Object.values(team.itemsByOwner).flat());
  return [...personal, ...teamItems];
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

describe("the demo teams", () => {
  const items = (team: (typeof teams)[number]) =>
    Object.entries(team.itemsByOwner).flatMap(([owner, list]) =>
      (list ?? []).map((item) => ({ owner: owner as DemoUserId, item })),
    );

  it("are Platform (Ada, Ben, Dev) and the Payments squad (Ada, Ben, Chloe), with Eli in neither", () => {
    expect(teams.map((t) => [t.id, t.name, t.members])).toEqual([
      ["platform", "Platform", ["ada", "ben", "dev"]],
      ["payments", "Payments squad", ["ada", "ben", "chloe"]],
    ]);
    expect(teams.map((t) => t.key)).toEqual([...DEMO_TEAM_IDS]);
    expect(teams.some((t) => t.members.includes("eli"))).toBe(false);
  });

  it("share a handful of items each, from at least two members, with the team and nobody else", () => {
    for (const team of teams) {
      const shared = items(team);
      expect(shared.length, team.id).toBeGreaterThanOrEqual(4);
      expect(new Set(shared.map((s) => s.owner)).size, team.id).toBeGreaterThanOrEqual(2);
      expect(new Set(shared.map((s) => s.item.kind)).size, team.id).toBeGreaterThanOrEqual(4);
      for (const { owner, item } of shared) {
        expect(team.memberKeys, `${team.id}: ${item.externalId}`).toContain(owner);
        expect(item.sharedWith, `${team.id}: ${item.externalId}`).toEqual([`team:${team.id}`]);
      }
    }
  });

  it("are valid API items in the demo's time span that never replace an owner's personal item", () => {
    const seen = new Map<DemoUserId, Set<string>>(
      DEMO_USER_IDS.map((owner) => [owner, keysOf(workspace.itemsByOwner[owner])]),
    );
    for (const team of teams) {
      for (const { owner, item } of items(team)) {
        const where = `${team.id} ${owner} ${item.source}:${item.externalId}`;
        const key = keyOf(item.source, item.externalId);
        expect(seen.get(owner)!.has(key), where).toBe(false);
        seen.get(owner)!.add(key);
        expect(ITEM_KINDS, where).toContain(item.kind);
        expect(item.body.trim().length, where).toBeGreaterThan(0);
        expect(new Date(item.occurredAt).toISOString(), where).toBe(item.occurredAt);
        expect(Date.parse(item.occurredAt), where).toBeLessThanOrEqual(NOW.getTime());
        expect(Date.parse(item.occurredAt), where).toBeGreaterThan(NOW.getTime() - 61 * DAY_MS);
      }
      for (const [owner, list] of Object.entries(team.itemsByOwner)) {
        expect(unresolvedTargets(list!, keysOf(list!)), `${team.id} ${owner}`).toEqual([]);
      }
    }
    expect(teams.some((t) => items(t).some(({ item }) => (item.links ?? []).length > 0))).toBe(true);
  });

  it("are the same for the same anchor, and map user and team ids when asked to", () => {
    expect(demoTeams(new Date(NOW))).toEqual(teams);
    const mapped = demoTeams(NOW, {
      userIds: { ada: "ada-x", ben: "ben-x", chloe: "chloe-x", dev: "dev-x" },
      teamIds: { payments: "pay-x" },
    });
    expect(mapped.map((t) => [t.key, t.id, t.members])).toEqual([
      ["platform", "platform", ["ada-x", "ben-x", "dev-x"]],
      ["payments", "pay-x", ["ada-x", "ben-x", "chloe-x"]],
    ]);
    expect(items(mapped[1]!).every(({ item }) => item.sharedWith?.join() === "team:pay-x")).toBe(true);
  });

  it("leave every personal expected search with its one match when a member also sees the team items", () => {
    const expected = demoExpectedFacts(NOW);
    for (const user of DEMO_USER_IDS) {
      const visible = visibleTo(user, {}, true);
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
});

describe("the demo teams through the API, loaded as scripts/load-demo.ts loads them", () => {
  const subjects: string[] = [];
  afterEach(async () => {
    for (const id of subjects.splice(0)) await clearAlarm(id);
  });

  it("refuses team items before the team exists, then serves members a team memory built only from the team's items; a non-member gets 404", {
    timeout: 120_000,
  }, async () => {
    const userIds = Object.fromEntries(DEMO_USER_IDS.map((key) => [key, newUserId(key)])) as Record<
      DemoUserId,
      string
    >;
    const teamIds = Object.fromEntries(
      DEMO_TEAM_IDS.map((key) => [key, `${key}-${crypto.randomUUID()}`]),
    ) as Record<DemoTeamId, string>;
    const mapped = demoWorkspace(NOW, { userIds });
    const [platform, payments] = demoTeams(NOW, { userIds, teamIds });
    const paymentsKey = teamKey("default", payments!.id);
    const clock = new FakeClock(new Date(Date.now() + 365 * 24 * 60 * MINUTE));
    await setAgentClock(paymentsKey, clock);
    for (const id of Object.values(userIds)) await setAgentClock(id, clock);
    subjects.push(paymentsKey, teamKey("default", platform!.id), ...Object.values(userIds));
    const admin = { scopes: ["admin"] };

    // Members first (PUT /members/:user by an admin), as the loader does.
    for (const id of Object.values(userIds)) {
      const res = await call(userIds.ada, "PUT", `/members/${id}`, admin);
      expect([200, 201], id).toContain(res.status);
    }
    // Sharing with a team the workspace does not know yet is refused, and writes nothing.
    const adaPayments = payments!.itemsByOwner.ada!;
    const early = await call(userIds.ada, "POST", "/items", { body: { items: adaPayments } });
    expect(early.status).toBe(422);
    expect(await early.text()).toContain(`team:${payments!.id}`);

    for (const team of [platform!, payments!]) {
      const res = await call(userIds.ada, "PUT", `/teams/${team.id}`, {
        ...admin,
        body: { name: team.name, members: team.members },
      });
      expect(res.status, team.id).toBe(201);
    }
    // Ada's personal items too: none of them may reach the team's memory.
    await ingestSettled(userIds.ada, mapped.itemsByOwner.ada);
    const teamItemIds = new Set<string>();
    for (const team of [platform!, payments!]) {
      for (const [owner, list] of Object.entries(team.itemsByOwner)) {
        const ids = await ingestSettled(userIds[owner as DemoUserId], list!);
        if (team === payments) for (const id of ids) teamItemIds.add(id);
      }
    }

    // Ben (a member) reads the Payments squad's memory: a first run, then the memory.
    const pending = await fetchSettled(userIds.ben, "GET", `/teams/${payments!.id}/memory`);
    expect(pending.status).toBe(202);
    expect(await runAlarm(paymentsKey)).toBe(true);
    const res = await call(userIds.ben, "GET", `/teams/${payments!.id}/memory?format=json`);
    expect(res.status).toBe(200);
    const memory = await json<MemoryJson>(res);
    expect(memory.statements.length).toBeGreaterThanOrEqual(3);
    const cited = memory.statements.flatMap((st) => st.citations.map((c) => c.id));
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter((id) => !teamItemIds.has(id))).toEqual([]);

    // Chloe is a member too; Eli and Dev are not (an admin token does not make a member).
    expect((await call(userIds.chloe, "GET", `/teams/${payments!.id}/memory`)).status).toBe(200);
    for (const outsider of [userIds.eli, userIds.dev]) {
      const denied = await call(outsider, "GET", `/teams/${payments!.id}/memory`, {
        scopes: ["memory:read", "items:write", "admin"],
      });
      expect(denied.status, outsider).toBe(404);
    }
  });
});
