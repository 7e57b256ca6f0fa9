/**
 * Hybrid retrieval through the worker, with an embedder configured (the fake LLM's embeddings through the
 * OpenAI SDK): ingest feeds the real embeddings queue, its consumer writes the chunks, and GET /items fuses
 * the keyword and vector channels in every mode, under the access rule.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { VECTOR_WEIGHT } from "../../src/db/item-search";
import { newUserId } from "../support/auth";
import { fakeLlm } from "../support/fake-llm-control";
import { call, ingest, item, json, warmUpWorker } from "../support/items";
import { registerMembers } from "../support/workspaces";
import { chunkCount, externalIds, type Hit, MODES, type Page, search, untilIndexed } from "./support";

beforeAll(warmUpWorker);

describe("hybrid search with an embedder configured", () => {
  it("embeds what ingest sends to the queue, reports it indexed, and finds by meaning what keywords miss", async () => {
    const user = newUserId("hy");
    const outcomes = await ingest(user, [
      item({
        externalId: "invoice",
        title: "Vendor payments",
        body: "We receive the invoice from the supplier every month and pay it within thirty days.",
      }),
      item({
        externalId: "ramen",
        title: "Lunch",
        body: "The new ramen place near the office opened today.",
      }),
    ]);
    const ids = outcomes.map((o) => o.id);
    await untilIndexed(user, ids);
    expect(await chunkCount(ids)).toBeGreaterThanOrEqual(2);

    // Misspelt: no word matches, so keyword search finds nothing; the vector channel does.
    const q = "q=recieve%20invoise%20supplyer";
    expect(externalIds(await search(user, `${q}&mode=keyword`))).toEqual([]);
    expect(externalIds(await search(user, `${q}&mode=semantic`))[0]).toBe("invoice");
    const hybrid = await search(user, q);
    expect(externalIds(hybrid)[0]).toBe("invoice");
    // Found by the vector channel alone: its snippet is its best chunk's.
    expect(hybrid.items[0]!.snippet).toContain("We receive the invoice");
    // Both channels agree on an own-words query: the best of each, so the fused score is the most it can be.
    const both = await search(user, "q=ramen%20office");
    expect(externalIds(both)[0]).toBe("ramen");
    expect(both.items[0]!.rank).toBeCloseTo(1 + VECTOR_WEIGHT, 10);

    // Re-ingesting the same content changes nothing; changed content is re-embedded.
    const [again] = await ingest(user, [
      item({ externalId: "ramen", title: "Lunch", body: "The ramen place closed; try the dumpling bar." }),
    ]);
    expect(again!.status).toBe("updated");
    await untilIndexed(user, [again!.id]);
    expect(externalIds(await search(user, "q=dumplings&mode=semantic"))[0]).toBe("ramen");
  });

  it("applies every filter in every mode", async () => {
    const user = newUserId("hy");
    const outcomes = await ingest(user, [
      item({
        externalId: "a",
        kind: "doc",
        body: "Kestrel migration cut-over runbook",
        author: "Ada",
        occurredAt: "2026-01-05T00:00:00Z",
      }),
      item({
        externalId: "b",
        kind: "email",
        body: "Kestrel migration cut-over runbook, emailed",
        author: "Ben",
        occurredAt: "2026-02-05T00:00:00Z",
      }),
    ]);
    // Another owner's doc in the same words: one shared with the user, one not (the text index keys both by
    // owner and kind: a kind filter must not reach the other's).
    const other = newUserId("hy-other");
    await registerMembers(user, other);
    const theirs = await ingest(other, [
      item({ externalId: "theirs", kind: "doc", body: "Kestrel migration cut-over runbook, theirs" }),
      item({
        externalId: "shared",
        kind: "doc",
        body: "Kestrel migration cut-over runbook, shared",
        occurredAt: "2025-12-05T00:00:00Z",
        sharedWith: [user],
      }),
    ]);
    await untilIndexed(
      user,
      outcomes.map((o) => o.id),
    );
    await untilIndexed(
      other,
      theirs.map((o) => o.id),
    );
    for (const mode of MODES) {
      const q = `q=kestrel%20cutover&mode=${mode}`;
      expect(externalIds(await search(user, q)).sort(), mode).toEqual(["a", "b", "shared"]);
      expect(externalIds(await search(user, `${q}&kind=doc`)).sort(), mode).toEqual(["a", "shared"]);
      expect(externalIds(await search(user, `${q}&kind=doc,email`)).sort(), mode).toEqual([
        "a",
        "b",
        "shared",
      ]);
      expect(externalIds(await search(other, `${q}&kind=doc`)).sort(), mode).toEqual(["shared", "theirs"]);
      expect(externalIds(await search(user, `${q}&people=ben`)), mode).toEqual(["b"]);
      expect(externalIds(await search(user, `${q}&since=2026-02-01`)), mode).toEqual(["b"]);
      expect(externalIds(await search(user, `${q}&until=2026-02-01`)).sort(), mode).toEqual(["a", "shared"]);
    }
  });

  it("fuses each channel's own scores exactly: keyword score over the best, plus the weight times the vector place", async () => {
    const user = newUserId("hy");
    const bodies = [
      "Harbour crane maintenance schedule for the north quay",
      "Crane inspection notes: harbour crane 4 needs new cables",
      "Harbour dues invoice for the crane hire in March",
      "Weekly harbour report, crane usage and berth moves",
      "Crane operator rota, harbour night shift",
    ];
    const outcomes = await ingest(
      user,
      bodies.map((body, i) => item({ externalId: `f-${i}`, body })),
    );
    await untilIndexed(
      user,
      outcomes.map((o) => o.id),
    );
    const q = "q=harbour%20crane";
    const rankOf = (page: Page) => new Map(page.items.map((h) => [h.externalId, h.rank]));
    const keyword = rankOf(await search(user, `${q}&mode=keyword`));
    const semantic = rankOf(await search(user, `${q}&mode=semantic`));
    const hybrid = rankOf(await search(user, `${q}&mode=hybrid`));
    const best = Math.max(...keyword.values());
    expect([...hybrid.keys()].sort()).toEqual(bodies.map((_, i) => `f-${i}`));
    for (const [id, rank] of hybrid) {
      // The same float8 arithmetic as the fusing statement's, on the channels' scores as they computed them.
      expect(rank, id).toBe(keyword.get(id)! / best + VECTOR_WEIGHT * semantic.get(id)!);
    }
  });

  it("pages over a fixed fused set: no gaps, no repeats, nothing written after the first page", async () => {
    for (const mode of ["hybrid", "semantic"] as const) {
      const user = newUserId("hy");
      const outcomes = await ingest(
        user,
        Array.from({ length: 9 }, (_, i) =>
          item({
            externalId: `p-${i}`,
            body: `Quarterly budget review ${"budget ".repeat(i % 3)}notes ${i}`,
            occurredAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
          }),
        ),
      );
      await untilIndexed(
        user,
        outcomes.map((o) => o.id),
      );
      const everything = externalIds(await search(user, `q=budget%20review&mode=${mode}&limit=100`));
      expect(everything, mode).toHaveLength(9);
      const first = await search(user, `q=budget%20review&mode=${mode}&limit=4`);
      const late = await ingest(user, [item({ externalId: `late-${mode}`, body: "Budget review, late" })]);
      await untilIndexed(user, [late[0]!.id]);
      const seen = externalIds(first);
      let cursor = first.nextCursor;
      for (let pages = 1; cursor && pages < 10; pages++) {
        const page = await search(user, `q=budget%20review&mode=${mode}&limit=4&cursor=${cursor}`);
        seen.push(...externalIds(page));
        cursor = page.nextCursor;
      }
      expect(seen, mode).toEqual(everything);
      // A cursor of another mode's search is refused.
      const other = mode === "hybrid" ? "semantic" : "hybrid";
      const res = await call(user, "GET", `/items?q=budget&mode=${other}&cursor=${first.nextCursor}`);
      expect(res.status).toBe(400);
    }
  });

  it("gives every hit on every page its chunk's snippet or the headline keyword search cuts", async () => {
    const user = newUserId("hy");
    const filler = "Nothing in this sentence is about the subject at hand. ".repeat(8);
    const outcomes = await ingest(
      user,
      Array.from({ length: 7 }, (_, i) =>
        item({
          externalId: `h-${i}`,
          body: `${filler}The reindeer herd crossed the ${"river ".repeat(1 + (i % 3))}at dawn, day ${i}.`,
          occurredAt: new Date(Date.UTC(2026, 1, 1 + i)).toISOString(),
        }),
      ),
    );
    await untilIndexed(
      user,
      outcomes.map((o) => o.id),
    );
    const q = "q=reindeer%20river";
    const snippets = async (mode: string) =>
      new Map(
        (await search(user, `${q}&mode=${mode}&limit=100`)).items.map((h) => [h.externalId, h.snippet]),
      );
    const headlines = await snippets("keyword");
    const chunks = await snippets("semantic");
    expect([...headlines.values()].every((s) => s.includes("reindeer"))).toBe(true);
    // Pages of two: the first page's headlines come with the keyword channel, a later page's afterwards.
    const hits: Hit[] = [];
    let page = await search(user, `${q}&limit=2`);
    for (hits.push(...page.items); page.nextCursor; hits.push(...page.items)) {
      page = await search(user, `${q}&limit=2&cursor=${page.nextCursor}`);
    }
    expect(hits).toHaveLength(7);
    for (const hit of hits) {
      expect([headlines.get(hit.externalId), chunks.get(hit.externalId)], hit.externalId).toContain(
        hit.snippet,
      );
    }
  });

  it("answers a hybrid search by its keyword channel when the query cannot be embedded; a semantic one is a 503", async () => {
    const user = newUserId("hy");
    await ingest(user, [
      item({ externalId: "k1", body: "Zanzibar shipment delayed at the port." }),
      item({ externalId: "k2", body: "The Zanzibar shipment arrived; Zanzibar invoices follow." }),
    ]);
    // The embedder refuses every embedding of this query (the SDK's retries included), not the items' (capitalised).
    const fault = await fakeLlm().fault(
      "zanzibar shipment",
      { kind: "server_error" },
      { role: "embedding", times: 20 },
    );
    try {
      const keyword = await search(user, "q=zanzibar%20shipment&mode=keyword");
      expect(keyword.items.length).toBe(2);
      expect(await search(user, "q=zanzibar%20shipment")).toEqual(keyword);
      const semantic = await call(user, "GET", "/items?q=zanzibar%20shipment&mode=semantic");
      expect(semantic.status).toBe(503);
      expect((await json<{ error: { code: string } }>(semantic)).error.code).toBe("embedding_unavailable");
      expect((await fault.state()).hits).toBeGreaterThan(0);
    } finally {
      await fault.remove();
    }
  });

  it("reports the embedder on /health and the workspace's pending counts to admins", async () => {
    const health = await json<{ embedder: unknown; search: unknown }>(await call("anyone", "GET", "/health"));
    expect(health.embedder).toEqual({ status: "configured", model: "openai:fake-embedding" });
    expect(health.search).toEqual({ modes: ["hybrid", "keyword", "semantic"], default: "hybrid" });

    const admin = newUserId("hy-admin");
    await registerMembers(admin);
    expect((await call(admin, "GET", "/admin/embeddings")).status).toBe(403);
    const status = await json<Record<string, unknown>>(
      await call(admin, "GET", "/admin/embeddings", { scopes: ["admin"] }),
    );
    // The fake model's size is not configured: it is the stored vectors' (the tests above indexed some).
    expect(status).toMatchObject({
      configured: true,
      model: "openai:fake-embedding",
      dimensions: 256,
      vectorIndex: "ready",
    });
    expect(status.items).toBe(Number(status.indexed) + Number(status.pending));
    expect(Number(status.items)).toBeGreaterThan(0);
  });
});
