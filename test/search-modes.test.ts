/**
 * Search without an embedder (this project configures none): keyword-only, and says so; the keyword
 * channel's hyphen and compound variants and its any-word fallback.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { newUserId } from "./support/auth";
import { call, ingest, item, json, warmUpWorker } from "./support/items";

beforeAll(warmUpWorker);

interface Page {
  items: { externalId: string; rank: number }[];
  nextCursor: string | null;
}
const search = async (user: string, params: string) => {
  const res = await call(user, "GET", `/items?${params}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await json<Page>(res)).items.map((h) => h.externalId);
};

describe("search modes without an embedder", () => {
  it("is keyword search by default and for mode=keyword and hybrid; semantic is a 400 saying why", async () => {
    const user = newUserId();
    const [outcome] = await ingest(user, [item({ externalId: "n", body: "Quarterly planning notes" })]);
    expect(await search(user, "q=planning")).toEqual(["n"]);
    expect(await search(user, "q=planning&mode=keyword")).toEqual(["n"]);
    expect(await search(user, "q=planning&mode=hybrid")).toEqual(["n"]);
    const semantic = await call(user, "GET", "/items?q=planning&mode=semantic");
    expect(semantic.status).toBe(400);
    expect((await json<{ error: { code: string } }>(semantic)).error.code).toBe(
      "semantic_search_unavailable",
    );
    const bad = await call(user, "GET", "/items?q=planning&mode=fuzzy");
    expect(bad.status).toBe(400);
    expect((await json<{ error: { message: string } }>(bad)).error.message).toBe(
      'Query parameter "mode" must be one of hybrid, keyword, semantic',
    );
    const read = await json<{ semanticIndex: string }>(await call(user, "GET", `/items/${outcome!.id}`));
    expect(read.semanticIndex).toBe("not_configured");
    const health = await json<{ embedder: unknown }>(await call(user, "GET", "/health"));
    expect(health.embedder).toEqual({ status: "not_configured" });
  });

  it("finds hyphen and compound variants of a word: cut-over, cutover, cut over", async () => {
    const user = newUserId();
    await ingest(user, [
      item({ externalId: "hyphen", body: "The Kestrel cut-over is on Friday." }),
      item({ externalId: "joined", body: "Kestrel cutover checklist." }),
      item({ externalId: "apart", body: "We cut over Kestrel at noon." }),
      item({ externalId: "other", body: "Kestrel budget." }),
    ]);
    // Every word (or a variant) of each query matches these; "other" comes only through the any-word
    // fallback, below them. "cutover" does not find "cut over" written apart: "over" is a stop word, so that
    // variant would be "cut" alone, which finds every cut.
    const first = async (q: string, n: number) =>
      (await search(user, `q=${encodeURIComponent(q)}`)).slice(0, n).sort();
    expect(await first("kestrel cutover", 2)).toEqual(["hyphen", "joined"]);
    expect(await first("kestrel cut-over", 3)).toEqual(["apart", "hyphen", "joined"]);
    expect(await first("kestrel cut over", 3)).toEqual(["apart", "hyphen", "joined"]);
    // With only two every-word matches, the any-word ones follow, below them.
    expect((await search(user, "q=kestrel%20cutover")).slice(2).sort()).toEqual(["apart", "other"]);
  });

  it("falls back to any word, ranked below every-word matches, only when every-word matching finds too little", async () => {
    const user = newUserId();
    await ingest(user, [
      item({ externalId: "golive", body: "The ledger migration goes live on 3 March." }),
      item({ externalId: "other", body: "Lunch menu for the offsite." }),
    ]);
    // "when does the migration go live": no item has every word; the one with the most of them comes first.
    const found = await search(user, `q=${encodeURIComponent("when does the migration go live")}`);
    expect(found).toEqual(["golive"]);
  });
});
