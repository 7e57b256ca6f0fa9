import { describe, expect, it } from "vitest";
import { loadPeopleFixture } from "../../bench/lib/people-fixture";
import { pairsOf, scoreClusters, trapMerged } from "../../bench/lib/people-metrics";
import { resolvePeople } from "../../src/domain/people/resolve";

describe("the labelled people fixture (npm run bench:people)", () => {
  it("labels every identifier the importers yield, and meets the targets with no trap merged", async () => {
    const fixture = await loadPeopleFixture();
    const truth = new Map(Object.entries(fixture.truth));
    expect([...new Set(fixture.sightings.map((s) => s.key))].filter((k) => !truth.has(k))).toEqual([]);

    const { people } = resolvePeople({
      sightings: fixture.sightings,
      hardLinks: fixture.hardLinks,
      corrections: [],
    });
    const predicted = new Map<string, string>();
    for (const person of people) for (const id of person.identifiers) predicted.set(id.key, person.id);
    const scores = scoreClusters(predicted, truth);
    expect(scores.pairPrecision).toBeGreaterThanOrEqual(0.99);
    expect(scores.bcubedF1).toBeGreaterThanOrEqual(0.9);
    expect(fixture.traps.filter((trap) => trapMerged(trap.keys, predicted)).map((t) => t.name)).toEqual([]);
  });

  it("scores clusterings as the metrics define (a check of the yardstick itself)", () => {
    const truth = new Map([
      ["a", "1"],
      ["b", "1"],
      ["c", "2"],
    ]);
    const allInOne = new Map([
      ["a", "x"],
      ["b", "x"],
      ["c", "x"],
    ]);
    expect(pairsOf(allInOne).size).toBe(3);
    const s = scoreClusters(allInOne, truth);
    expect(s.pairPrecision).toBeCloseTo(1 / 3);
    expect(s.pairRecall).toBe(1);
    expect(s.bcubedPrecision).toBeCloseTo((2 / 3 + 2 / 3 + 1 / 3) / 3);
    expect(s.bcubedRecall).toBe(1);
    expect(trapMerged([["a"], ["c"]], allInOne)).toBe(true);
    expect(trapMerged([["a"], ["c"]], truth)).toBe(false);
  });
});
