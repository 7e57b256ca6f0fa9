import { describe, expect, it } from "vitest";
import { compareFused, fuseChannels } from "../../src/domain/search-fusion";

const at = (day: number) => new Date(Date.UTC(2026, 0, day));
const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const WEIGHTS = { base: 0.25, uncovered: 0.75 };

describe("fuseChannels", () => {
  it("scores keyword over its best plus the weight times the vector place, keeps near vector-only items", () => {
    const fused = fuseChannels(
      [
        { id: id(1), score: 8, coverage: 1, occurredAt: at(1) },
        { id: id(2), score: 4, coverage: 1, occurredAt: at(2) },
      ],
      [
        { id: id(3), distance: 0.1, snippet: "three", occurredAt: at(3) },
        { id: id(2), distance: 0.2, snippet: "two", occurredAt: at(2) },
        { id: id(4), distance: 0.5, snippet: "four", occurredAt: at(4) },
      ],
      WEIGHTS,
    );
    expect(fused.map((f) => [f.id, f.score, f.chunkSnippet])).toEqual([
      [id(1), 1, null],
      [id(2), 0.5 + 0.25 * (0.3 / 0.4), "two"],
      [id(3), 0.25, "three"],
    ]);
  });

  it("lets every vector candidate in when the channels share none, and scores one lone distance as nearest", () => {
    const lone = fuseChannels([], [{ id: id(1), distance: 0.7, snippet: "s", occurredAt: at(1) }], WEIGHTS);
    // No keyword candidate covers anything: the vector channel's full weight.
    expect(lone).toEqual([{ id: id(1), score: 1, occurredAt: at(1), chunkSnippet: "s" }]);
    const apart = fuseChannels(
      [{ id: id(1), score: 3, coverage: 1, occurredAt: at(1) }],
      [
        { id: id(2), distance: 0.1, snippet: "a", occurredAt: at(2) },
        { id: id(3), distance: 0.9, snippet: "b", occurredAt: at(3) },
      ],
      WEIGHTS,
    );
    expect(apart.map((f) => f.id)).toEqual([id(1), id(2), id(3)]);
  });

  it("takes the chunk's snippet only where the vector channel ranks the item at least as high", () => {
    const fused = fuseChannels(
      [
        { id: id(1), score: 2, coverage: 1, occurredAt: at(1) },
        { id: id(2), score: 1, coverage: 1, occurredAt: at(2) },
      ],
      [
        { id: id(2), distance: 0.1, snippet: "near two", occurredAt: at(2) },
        { id: id(1), distance: 0.2, snippet: "near one", occurredAt: at(1) },
      ],
      { base: 0.1, uncovered: 0 },
    );
    const snippets = Object.fromEntries(fused.map((f) => [f.id, f.chunkSnippet]));
    expect(snippets).toEqual({ [id(1)]: null, [id(2)]: "near two" });
  });

  it("weighs the vector channel more, and lets its farther items in, as the best keyword match covers less of the query", () => {
    const keyword = (coverage: number) => [
      { id: id(1), score: 8, coverage, occurredAt: at(1) },
      { id: id(2), score: 6, coverage: coverage / 2, occurredAt: at(2) },
    ];
    const vector = [
      { id: id(2), distance: 0.1, snippet: "two", occurredAt: at(2) },
      { id: id(3), distance: 0.2, snippet: "three", occurredAt: at(3) },
      { id: id(4), distance: 0.5, snippet: "four", occurredAt: at(4) },
    ];
    // Every word matched by the best item: the base weight, and the gate keeps out what is farther than item 2
    // (the two tie at 1: newest first).
    expect(fuseChannels(keyword(1), vector, WEIGHTS).map((f) => [f.id, f.score])).toEqual([
      [id(2), 0.75 + 0.25],
      [id(1), 1],
    ]);
    // Shares that sum to 1 within a float's error count as the whole query.
    expect(fuseChannels(keyword(1 - 1e-12), vector, WEIGHTS).map((f) => f.id)).toEqual([id(2), id(1)]);
    // A fifth of the query's idf at best (incidental words): weight 0.25 + 0.8 * 0.75 = 0.85, no gate.
    const weak = fuseChannels(keyword(0.2), vector, WEIGHTS);
    expect(weak.map((f) => f.id)).toEqual([id(2), id(1), id(3), id(4)]);
    expect(weak.find((f) => f.id === id(3))!.score).toBeCloseTo(0.85 * (0.3 / 0.4));
    // A question's weights do not move with coverage.
    const question = fuseChannels(keyword(0.2), vector, { base: 0.1, uncovered: 0 });
    expect(question.map((f) => f.id)).toEqual([id(1), id(2)]);
  });

  it("orders ties newest first, then by id descending, as the cursor compares them", () => {
    const fused = fuseChannels(
      [
        { id: id(1), score: 1, coverage: 1, occurredAt: at(1) },
        { id: id(2), score: 1, coverage: 1, occurredAt: at(5) },
        { id: id(3), score: 1, coverage: 1, occurredAt: at(5) },
      ],
      [],
      WEIGHTS,
    );
    expect(fused.map((f) => f.id)).toEqual([id(3), id(2), id(1)]);
    expect(compareFused(fused[1]!, fused[0]!)).toBeLessThan(0);
    expect(compareFused(fused[0]!, fused[0]!)).toBe(0);
  });
});
