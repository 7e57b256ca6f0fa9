import { describe, expect, it } from "vitest";
import { keywordQuery, MAX_QUERY_WORDS } from "../../src/db/keyword-query";

describe("the keyword channel's query", () => {
  it("gives a hyphenated word its joined form and its parts in a row", () => {
    expect(keywordQuery("cut-over")).toEqual({
      strict: "(cut-over | cutover | cut <-> over)",
      loose: "(cut-over | cutover | cut <-> over)",
      websearch: false,
    });
  });

  it("lets two adjacent words match their compound, joined or hyphenated", () => {
    const query = keywordQuery("Kestrel cut over");
    expect(query?.strict).toBe(
      "(kestrel | kes-trel | kest-rel | kestrelcut | kestrel-cut) & (cut | kestrelcut | kestrel-cut | cutover | cut-over) & (over | cutover | cut-over)",
    );
    expect(query?.loose).toBe(query?.strict.replaceAll(") & (", ") | ("));
  });

  it("tries the hyphenated splits of a long word, both parts at least three letters", () => {
    expect(keywordQuery("cutover")?.strict).toBe("(cutover | cut-over | cuto-ver)");
  });

  it("keeps only words (letters, digits, inner dots and hyphens), so to_tsquery sees no operator", () => {
    expect(keywordQuery("what's (up) & !now: 3.5*")?.strict).toBe(
      "(what | whats | what-s) & (s | whats | what-s | sup | s-up) & (up | sup | s-up | upnow | up-now) & (now | upnow | up-now) & (3.5)",
    );
    expect(keywordQuery("?!")).toBeNull();
  });

  it("takes web-search syntax as written, with no any-word fallback", () => {
    expect(keywordQuery('"rollback plan" -ledger')).toEqual({
      strict: '"rollback plan" -ledger',
      loose: null,
      websearch: true,
    });
  });

  it("reads at most MAX_QUERY_WORDS words", () => {
    const query = keywordQuery(Array.from({ length: 40 }, (_, i) => `w${i}`).join(" "));
    expect(query?.strict.split(" & ")).toHaveLength(MAX_QUERY_WORDS);
  });
});
