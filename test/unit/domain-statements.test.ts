import { describe, expect, it } from "vitest";
import {
  type Dismissal,
  normalizedText,
  restatedDismissal,
  stampStatements,
  wordSimilarity,
} from "../../src/domain/statements";

const AT = new Date("2025-06-02T09:00:00.000Z");

describe("a statement's identity across versions", () => {
  it("keeps the id and firstStated of a statement carried unchanged, and gives new ones a new id and now", () => {
    let next = 0;
    const previous = [
      {
        section: "A",
        text: "Leads Kestrel",
        itemIds: ["i1", "i2"],
        id: "s-1",
        firstStated: "2025-01-01T00:00:00.000Z",
      },
      {
        section: "A",
        text: "Cut-over on 3 March",
        itemIds: ["i3"],
        id: "s-2",
        firstStated: "2025-02-01T00:00:00.000Z",
      },
    ];
    const stamped = stampStatements(
      [
        { section: "Moved section", text: "Leads Kestrel", itemIds: ["i2", "i1"] },
        { section: "A", text: "Cut-over on 3 March", itemIds: ["i3", "i4"] },
        { section: "A", text: "Leads Kestrel", itemIds: ["i1", "i2"] },
      ],
      previous,
      AT,
      () => `new-${++next}`,
    );
    expect(stamped).toEqual([
      {
        section: "Moved section",
        text: "Leads Kestrel",
        itemIds: ["i2", "i1"],
        id: "s-1",
        firstStated: "2025-01-01T00:00:00.000Z",
      },
      {
        section: "A",
        text: "Cut-over on 3 March",
        itemIds: ["i3", "i4"],
        id: "new-1",
        firstStated: AT.toISOString(),
      },
      {
        section: "A",
        text: "Leads Kestrel",
        itemIds: ["i1", "i2"],
        id: "new-2",
        firstStated: AT.toISOString(),
      },
    ]);
  });
});

describe("restating a dismissal", () => {
  const dismissal = (text: string, itemIds: string[]): Dismissal => ({
    id: "d",
    statementId: "s",
    section: "A",
    text,
    itemIds,
    reason: null,
    at: AT,
  });
  const dismissed = [dismissal("The Kestrel cut-over is on 3 March, per Ben", ["i1"])];

  it("is the same normalised text, whatever it cites", () => {
    expect(normalizedText("The  Kestrel cut-over is on 3 March, per Ben!")).toBe(
      "the kestrel cut over is on 3 march per ben",
    );
    expect(
      restatedDismissal({ text: "the kestrel cut-over is on 3 March per Ben.", itemIds: ["i9"] }, dismissed),
    ).toBe(dismissed[0]);
  });

  it("is near-identical words with the same citations and the same figures", () => {
    expect(wordSimilarity("a b c d e f g", "a b c d e f x")).toBeCloseTo(6 / 7);
    expect(
      restatedDismissal({ text: "Kestrel cut-over is on 3 March, per Ben", itemIds: ["i1"] }, dismissed),
    ).toBeDefined();
    expect(
      restatedDismissal({ text: "Kestrel cut-over is on 3 March, per Ben", itemIds: ["i2"] }, dismissed),
    ).toBeUndefined();
    // A correction, not a restatement: another date.
    expect(
      restatedDismissal({ text: "The Kestrel cut-over is on 10 March, per Ben", itemIds: ["i1"] }, dismissed),
    ).toBeUndefined();
    // Too different.
    expect(
      restatedDismissal({ text: "Ben runs the Kestrel cut-over", itemIds: ["i1"] }, dismissed),
    ).toBeUndefined();
  });
});
