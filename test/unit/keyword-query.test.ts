import { describe, expect, it } from "vitest";
import { isQuestion, keywordQuery, MAX_QUERY_WORDS, termAlternatives } from "../../src/db/keyword-query";

describe("the keyword channel's query", () => {
  it("gives a hyphenated word its joined form and its parts in a row", () => {
    expect(keywordQuery("cut-over")).toEqual({
      terms: ["(cut-over | cutover | cut <-> over)"],
      excluded: [],
    });
  });

  it("lets two adjacent words match their compound, joined or hyphenated", () => {
    expect(keywordQuery("Kestrel cut over")?.terms).toEqual([
      "(kestrel | kes-trel | kest-rel | kestrelcut | kestrel-cut)",
      "(cut | kestrelcut | kestrel-cut | cutover | cut-over)",
      "(over | cutover | cut-over)",
    ]);
  });

  it("tries the hyphenated splits of a long word, both parts at least three letters", () => {
    expect(keywordQuery("cutover")?.terms).toEqual(["(cutover | cut-over | cuto-ver)"]);
  });

  it("keeps only words (letters, digits, inner dots and hyphens), so to_tsquery sees no operator", () => {
    expect(keywordQuery("what's (up) & !now: 3.5*")?.terms).toEqual([
      "(what | whats | what-s)",
      "(s | whats | what-s | sup | s-up)",
      "(up | sup | s-up | upnow | up-now)",
      "(now | upnow | up-now)",
      "3.5",
    ]);
    expect(keywordQuery("?!")).toBeNull();
  });

  it("reads a quoted phrase as one term and a leading minus as an exclusion", () => {
    expect(keywordQuery('"rollback plan" -ledger')).toEqual({
      terms: ["(rollback <-> plan)"],
      excluded: ["(ledger | led-ger)"],
    });
    expect(keywordQuery('budget -"old plan"')).toEqual({
      terms: ["(budget | bud-get)"],
      excluded: ["old <-> plan"],
    });
    // A hyphen inside a word is no exclusion.
    expect(keywordQuery("e-mail")?.excluded).toEqual([]);
  });

  it("reads lowercase or and and as words, and OR in capitals as either of two terms", () => {
    expect(keywordQuery("budget or timeline")?.terms).toHaveLength(3);
    expect(keywordQuery("budget and timeline")?.terms).toHaveLength(3);
    expect(keywordQuery("ledger OR payments")?.terms).toEqual([
      "(ledger | led-ger) | (payments | pay-ments | paym-ents | payme-nts)",
    ]);
  });

  it("reads a question as its words, with no term required", () => {
    expect(keywordQuery("When did Maria move to Lisbon?")?.terms).toEqual([
      "(when | whendid | when-did)",
      "(did | whendid | when-did | didmaria | did-maria)",
      "(maria | didmaria | did-maria | mariamove | maria-move)",
      "(move | mariamove | maria-move | moveto | move-to)",
      "(to | moveto | move-to | tolisbon | to-lisbon)",
      "(lisbon | tolisbon | to-lisbon | lis-bon)",
    ]);
  });

  it("reads at most MAX_QUERY_WORDS terms", () => {
    const query = keywordQuery(Array.from({ length: 40 }, (_, i) => `w${i}`).join(" "));
    expect(query?.terms).toHaveLength(MAX_QUERY_WORDS);
  });
});

describe("isQuestion", () => {
  it("reads a question mark or an opening question word as a question, and a topical query as none", () => {
    expect(isQuestion("when does the new ledger go live?")).toBe(true);
    expect(isQuestion("Did Maria adopt a pet")).toBe(true);
    expect(isQuestion("ledger cut-over?  ")).toBe(true);
    expect(isQuestion("ledger cut-over Saturday")).toBe(false);
    expect(isQuestion("whoever signed the lease")).toBe(false);
    expect(isQuestion("")).toBe(false);
  });
});

describe("termAlternatives", () => {
  it("splits a term's alternatives into its plain words and the rest, opening nested ORs", () => {
    expect(termAlternatives("(cut-over | cutover | cut <-> over)")).toEqual({
      words: "cutover",
      others: "cut-over | cut <-> over",
    });
    expect(termAlternatives("pipeline")).toEqual({ words: "pipeline", others: null });
    expect(termAlternatives("(weekly <-> pipeline)")).toEqual({
      words: null,
      others: "(weekly <-> pipeline)",
    });
    // OR in capitals joins two terms into one: "(a | a-b) | (x <-> y)".
    const [joined] = keywordQuery('kestrel OR "cut over"')!.terms;
    expect(joined).toBe("(kestrel | kes-trel | kest-rel) | (cut <-> over)");
    expect(termAlternatives(joined!)).toEqual({
      words: "kestrel",
      others: "kes-trel | kest-rel | (cut <-> over)",
    });
    expect(termAlternatives("3.5")).toEqual({ words: null, others: "3.5" });
  });
});
