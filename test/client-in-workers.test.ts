/**
 * The TypeScript client inside workerd, as a Worker would use it: the worker's own fetch, a getToken, and
 * no Node API anywhere (the package's tsconfig has no Node types either).
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { type ItemInput, UnifiedMemory, UnifiedMemoryError } from "../clients/typescript/src/index";
import { newUserId, tokenFor } from "./support/auth";
import { fixtures } from "./support/import-fixtures";
import { warmUpWorker } from "./support/items";

beforeAll(warmUpWorker);

const clientFor = (user: string) =>
  new UnifiedMemory({
    baseUrl: "http://worker.test",
    getToken: () => tokenFor(user),
    fetch: (input, init) => exports.default.fetch(input, init),
  });

describe("the TypeScript client in a Worker", () => {
  it("upserts 1,200 items in requests of 500, pages a search and reads an empty memory", async () => {
    const um = clientFor(newUserId("client-in-workers"));
    const items: ItemInput[] = Array.from({ length: 1200 }, (_, i) => ({
      source: "notes",
      externalId: `n${i}`,
      kind: "note",
      body: `Note ${i} about the Kestrel review`,
      occurredAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    }));
    expect(await um.items.upsert(items, { concurrency: 2 })).toMatchObject({
      created: 1200,
      failed: 0,
      requests: 3,
    });
    let pages = 0;
    let hits = 0;
    for await (const page of um.items.search({ since: "2026-01-01", limit: 100 }).pages()) {
      pages++;
      hits += page.items.length;
    }
    expect({ pages, hits }).toEqual({ pages: 12, hits: 1200 });
    await expect(clientFor(newUserId("client-in-workers")).memory.get()).resolves.toMatchObject({
      status: "empty",
    });
  });

  it("uploads an export file and waits for its import, whose second upload changes nothing", async () => {
    const um = clientFor(newUserId("client-in-workers"));
    const file = new Blob([fixtures.vcf["gmail-list.vcf"]!]);
    const options = { name: "contacts.vcf", modifiedAt: new Date("2024-05-01T00:00:00Z") };
    const queued = await um.imports.upload(file, options);
    expect(queued).toMatchObject({ format: "vcf", name: "contacts.vcf", source: "vcf" });
    const seen: string[] = [];
    const done = await um.imports.wait(queued.id, { interval: 100, onProgress: (j) => seen.push(j.status) });
    expect(done).toMatchObject({ status: "done", failure: null });
    expect(done.summary.created).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe("done");
    const again = await um.imports.wait((await um.imports.upload(file, options)).id, { interval: 100 });
    expect(again.summary).toMatchObject({ created: 0, unchanged: done.summary.created });
    expect((await um.imports.list()).imports.map((i) => i.id)).toEqual([again.id, queued.id]);
  });

  it("throws a UnifiedMemoryError with the API's code", async () => {
    const error = await clientFor(newUserId("client-in-workers"))
      .items.get(crypto.randomUUID())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnifiedMemoryError);
    expect(error).toMatchObject({ code: "not_found", status: 404 });
  });
});
