/**
 * The keyword channel's statistics (keyword-ranking.ts keywordStatistics) past the sample: a term the
 * viewer's newest items barely hold is counted, among their own items and among those shared with them,
 * and never among items they cannot see; N, the owner's count kept by triggers (drizzle/0025), follows
 * every write.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { keywordQuery } from "../src/db/keyword-query";
import {
  inverseDocumentFrequency,
  keywordRanked,
  keywordStatistics,
  STATS_SAMPLE,
} from "../src/db/keyword-ranking";
import { newUserId } from "./support/auth";
import { call, ingest, item, warmUpWorker } from "./support/items";
import { registerMembers } from "./support/workspaces";

describe("keyword statistics", () => {
  it("counts a rare term over the viewer's own and shared items, outside the sample, and no one else's", async () => {
    await warmUpWorker();
    const [viewer, colleague, stranger] = [newUserId(), newUserId(), newUserId()];
    await registerMembers(viewer, colleague);
    const day = (n: number) => new Date(Date.UTC(2025, 0, 1 + n)).toISOString();
    // The viewer's newest STATS_SAMPLE items hold neither "zephyr" nor "quorum"; older ones hold them.
    const own = Array.from({ length: STATS_SAMPLE + 20 }, (_, i) =>
      item({
        externalId: `v-${i}`,
        body: i < 4 ? "The zephyr quorum met." : i < 6 ? "A quorum." : `Routine note ${i}.`,
        occurredAt: day(i),
      }),
    );
    for (let at = 0; at < own.length; at += 500) await ingest(viewer, own.slice(at, at + 500));
    const old = (prefix: string, n: number, sharedWith?: string[]) =>
      Array.from({ length: n }, (_, i) =>
        item({
          externalId: `${prefix}-${i}`,
          body: "zephyr notes",
          occurredAt: day(-10 - i),
          ...(sharedWith ? { sharedWith } : {}),
        }),
      );
    await ingest(colleague, old("shared", 3, [viewer]));
    await ingest(colleague, old("unshared", 7));
    await ingest(stranger, old("elsewhere", 9, [stranger]));

    const db = createDb(parseConfig(env));
    const stats = await keywordStatistics(db, viewer, keywordQuery("zephyr quorum")!);
    expect(stats.documents).toBe(own.length + 3);
    // zephyr: four of the viewer's items and three shared with them; quorum: six of the viewer's.
    expect(stats.frequencies).toEqual([7, 6]);

    // N follows every write at once: an item written again is the same item, a new one counts, a deleted one
    // is gone.
    const documents = async () =>
      (await keywordStatistics(db, viewer, keywordQuery("zephyr quorum")!)).documents;
    const [again] = await ingest(viewer, [{ ...own[0]!, body: "The zephyr quorum met again." }]);
    expect(again!.status).toBe("updated");
    expect(await documents()).toBe(own.length + 3);
    await ingest(viewer, [item({ externalId: "v-extra", body: "One more." })]);
    expect(await documents()).toBe(own.length + 4);
    expect((await call(viewer, "DELETE", `/items/${again!.id}`)).status).toBe(204);
    expect(await documents()).toBe(own.length + 3);
  });

  it("samples the newest items the viewer may see, those shared with them among them, and no one else's", async () => {
    await warmUpWorker();
    const [viewer, colleague, stranger] = [newUserId(), newUserId(), newUserId()];
    await registerMembers(viewer, colleague);
    const day = (n: number) => new Date(Date.UTC(2025, 5, 1 + n)).toISOString();
    const items = (prefix: string, n: number, body: string, from: number, sharedWith?: string[]) =>
      Array.from({ length: n }, (_, i) =>
        item({
          externalId: `${prefix}-${i}`,
          body,
          occurredAt: day(from + i),
          ...(sharedWith ? { sharedWith } : {}),
        }),
      );
    // The viewer's items are the oldest; the longer shared ones, and a stranger's newest, come after them.
    await ingest(viewer, items("own", 2, "A short alpha note.", 0));
    await ingest(colleague, items("shared", 3, `The beta report. ${"More text. ".repeat(40)}`, 10, [viewer]));
    await ingest(stranger, items("elsewhere", 4, `beta ${"padding ".repeat(400)}`, 20));

    const db = createDb(parseConfig(env));
    const stats = await keywordStatistics(db, viewer, keywordQuery("alpha beta")!);
    expect(stats.documents).toBe(5);
    // A sample of every visible item counts exactly.
    expect(stats.frequencies).toEqual([2, 3]);
    const visible = sql`(owner_id = ${viewer} or (owner_id = ${colleague} and ${viewer} = any(shared_with)))`;
    const mean = await db.execute(
      sql`select avg(octet_length(title) + octet_length(author) + octet_length(body))::float8 as dl
        from items where ${visible}`,
    );
    expect(stats.averageLength).toBeCloseTo(Number((mean.rows[0] as { dl: unknown }).dl), 3);
  });

  it("gives each candidate its coverage: the share of the query's idf it matches", async () => {
    await warmUpWorker();
    const viewer = newUserId();
    const written = await ingest(viewer, [
      item({ externalId: "both", body: "The zephyr quorum met." }),
      item({ externalId: "zephyr", body: "A zephyr." }),
      item({ externalId: "quorum", body: "A quorum, and another quorum." }),
      item({ externalId: "quorum-2", body: "Quorum again." }),
      item({ externalId: "neither", body: "Routine note." }),
    ]);
    const idOf = (externalId: string) => written.find((w) => w.externalId === externalId)!.id;
    const db = createDb(parseConfig(env));
    const query = keywordQuery("zephyr quorum")!;
    const stats = await keywordStatistics(db, viewer, query);
    const filters = { conditions: [], ordered: true, kinds: [], people: false };
    const rows = (await db.execute(keywordRanked(viewer, query, stats, filters))).rows as {
      id: string;
      coverage: number;
    }[];
    const coverage = Object.fromEntries(rows.map((r) => [r.id, Number(r.coverage)]));
    const [zephyr, quorum] = stats.frequencies.map((df) => inverseDocumentFrequency(stats.documents, df));
    expect(coverage[idOf("both")]).toBeCloseTo(1);
    expect(coverage[idOf("zephyr")]).toBeCloseTo(zephyr! / (zephyr! + quorum!));
    expect(coverage[idOf("quorum")]).toBeCloseTo(quorum! / (zephyr! + quorum!));
    // The rarer word weighs more.
    expect(coverage[idOf("zephyr")]).toBeGreaterThan(coverage[idOf("quorum")]!);
    expect(coverage[idOf("neither")]).toBeUndefined();
  });
});
