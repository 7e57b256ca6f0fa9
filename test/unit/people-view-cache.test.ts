/** Kept people views: served only for the fingerprint they were resolved at, bounded by their sightings. */
import { describe, expect, it } from "vitest";
import { PeopleViewCache } from "../../src/app/people-view-cache";
import type { PeopleView } from "../../src/domain/people-view";

const view = (name: string) =>
  ({
    people: [],
    suggestions: [],
    corrections: [],
    visibleKeys: new Set([name]),
    personOf: new Map(),
    byId: new Map(),
    itemTimes: new Map(),
    truncated: false,
  }) as PeopleView;

describe("PeopleViewCache", () => {
  it("answers a view only for the fingerprint it was kept with, and forgets it on another", () => {
    const cache = new PeopleViewCache(100);
    const ada = view("ada");
    cache.set("ada", "v1", ada, 10);
    expect(cache.get("ada", "v1")).toBe(ada);
    expect(cache.get("ben", "v1")).toBeUndefined();
    expect(cache.get("ada", "v2")).toBeUndefined();
    expect(cache.has("ada")).toBe(false);
    expect(cache.get("ada", "v1")).toBeUndefined();
  });

  it("keeps at most its capacity of sightings, the least recently used out first", () => {
    const cache = new PeopleViewCache(100);
    cache.set("a", "f", view("a"), 40);
    cache.set("b", "f", view("b"), 40);
    expect(cache.get("a", "f")).toBeDefined();
    cache.set("c", "f", view("c"), 40);
    expect(cache.has("b")).toBe(false);
    expect(cache.has("a")).toBe(true);
    expect(cache.has("c")).toBe(true);
    // A view larger than the whole cache is not kept, and evicts nothing.
    cache.set("huge", "f", view("huge"), 101);
    expect(cache.has("huge")).toBe(false);
    expect(cache.size).toBe(2);
    // Setting a key again replaces its entry and its weight.
    cache.set("a", "g", view("a2"), 60);
    expect(cache.size).toBe(2);
    expect(cache.get("a", "g")?.visibleKeys.has("a2")).toBe(true);
    cache.set("d", "f", view("d"), 10);
    expect(cache.has("c")).toBe(false);
  });
});
