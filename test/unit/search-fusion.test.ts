import { describe, expect, it } from "vitest";
import { compareFused, fuseChannels } from "../../src/domain/search-fusion";

const at = (day: number) => new Date(Date.UTC(2026, 0, day));
const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

describe("fuseChannels", () => {
  it("scores keyword over its best plus the weight times the vector place, keeps near vector-only items", () => {
    const fused = fuseChannels(
      [
        { id: id(1), score: 8, occurredAt: at(1) },
        { id: id(2), score: 4, occurredAt: at(2) },
      ],
      [
        { id: id(3), distance: 0.1, snippet: "three", occurredAt: at(3) },
        { id: id(2), distance: 0.2, snippet: "two", occurredAt: at(2) },
        { id: id(4), distance: 0.5, snippet: "four", occurredAt: at(4) },
      ],
      0.25,
    );
    expect(fused.map((f) => [f.id, f.score, f.chunkSnippet])).toEqual([
      [id(1), 1, null],
      [id(2), 0.5 + 0.25 * (0.3 / 0.4), "two"],
      [id(3), 0.25, "three"],
    ]);
  });

  it("lets every vector candidate in when the channels share none, and scores one lone distance as nearest", () => {
    const lone = fuseChannels([], [{ id: id(1), distance: 0.7, snippet: "s", occurredAt: at(1) }], 0.25);
    expect(lone).toEqual([{ id: id(1), score: 0.25, occurredAt: at(1), chunkSnippet: "s" }]);
    const apart = fuseChannels(
      [{ id: id(1), score: 3, occurredAt: at(1) }],
      [
        { id: id(2), distance: 0.1, snippet: "a", occurredAt: at(2) },
        { id: id(3), distance: 0.9, snippet: "b", occurredAt: at(3) },
      ],
      0.25,
    );
    expect(apart.map((f) => f.id)).toEqual([id(1), id(2), id(3)]);
  });

  it("takes the chunk's snippet only where the vector channel ranks the item at least as high", () => {
    const fused = fuseChannels(
      [
        { id: id(1), score: 2, occurredAt: at(1) },
        { id: id(2), score: 1, occurredAt: at(2) },
      ],
      [
        { id: id(2), distance: 0.1, snippet: "near two", occurredAt: at(2) },
        { id: id(1), distance: 0.2, snippet: "near one", occurredAt: at(1) },
      ],
      0.1,
    );
    const snippets = Object.fromEntries(fused.map((f) => [f.id, f.chunkSnippet]));
    expect(snippets).toEqual({ [id(1)]: null, [id(2)]: "near two" });
  });

  it("orders ties newest first, then by id descending, as the cursor compares them", () => {
    const fused = fuseChannels(
      [
        { id: id(1), score: 1, occurredAt: at(1) },
        { id: id(2), score: 1, occurredAt: at(5) },
        { id: id(3), score: 1, occurredAt: at(5) },
      ],
      [],
      0.25,
    );
    expect(fused.map((f) => f.id)).toEqual([id(3), id(2), id(1)]);
    expect(compareFused(fused[1]!, fused[0]!)).toBeLessThan(0);
    expect(compareFused(fused[0]!, fused[0]!)).toBe(0);
  });
});
