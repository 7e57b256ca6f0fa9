import { describe, expect, it } from "vitest";
import {
  DEFAULT_SECTION,
  extractMemoryBlock,
  parseMemory,
  splitCitations,
} from "../../src/agent/parse-memory";

describe("extracting the memory block", () => {
  it("takes the block and reports no narration for a clean answer", () => {
    expect(extractMemoryBlock("<memory>\n## Role\n- Leads X [E1]\n</memory>")).toEqual({
      ok: true,
      block: "\n## Role\n- Leads X [E1]\n",
      narration: "",
    });
  });

  it("treats a code fence around the block as packaging, not narration", () => {
    const result = extractMemoryBlock("```xml\n<memory>\n- a [E1]\n</memory>\n```");
    expect(result).toMatchObject({ ok: true, narration: "" });
  });

  it("reports text around the block as narration", () => {
    const result = extractMemoryBlock("Here is the memory:\n<memory>\n- a [E1]\n</memory>\nHope this helps!");
    expect(result).toMatchObject({ ok: true, narration: "Here is the memory:\nHope this helps!" });
  });

  it("reports a missing, an unclosed and a repeated block", () => {
    expect(extractMemoryBlock("I could not find anything.")).toEqual({ ok: false, problem: "missing" });
    expect(extractMemoryBlock("<memory>\n- a [E1]")).toEqual({ ok: false, problem: "unclosed" });
    expect(extractMemoryBlock("<memory>- a [E1]</memory><memory>- b [E2]</memory>")).toEqual({
      ok: false,
      problem: "multiple",
    });
    expect(extractMemoryBlock("<memory><memory>- a [E1]</memory>")).toEqual({
      ok: false,
      problem: "multiple",
    });
  });
});

describe("parsing the memory", () => {
  it("parses sections and bullet statements with trailing citations, numbering statements from 0", () => {
    const { statements, problems } = parseMemory(`
## Role and team
- Engineering manager of the Payments team [D1]

## Current projects
- Leads the payments migration; target date is 3 March [E12][M7]
* Sends the Q3 roadmap to Dana by Friday [m3].
`);
    expect(problems).toEqual([]);
    expect(statements).toEqual([
      {
        index: 0,
        section: "Role and team",
        text: "Engineering manager of the Payments team",
        refs: ["D1"],
        line: 3,
      },
      {
        index: 1,
        section: "Current projects",
        text: "Leads the payments migration; target date is 3 March",
        refs: ["E12", "M7"],
        line: 6,
      },
      {
        index: 2,
        section: "Current projects",
        text: "Sends the Q3 roadmap to Dana by Friday",
        refs: ["M3"],
        line: 7,
      },
    ]);
  });

  it("accepts comma-separated citations and drops duplicate refs", () => {
    expect(splitCitations("Works with Dana [E1, M2][E1]")).toEqual({
      text: "Works with Dana",
      refs: ["E1", "M2"],
      citationInText: false,
    });
  });

  it("keeps a statement without citations so the checks can reject it", () => {
    const { statements } = parseMemory("## Decisions\n- Chose Postgres");
    expect(statements).toEqual([
      { index: 0, section: "Decisions", text: "Chose Postgres", refs: [], line: 2 },
    ]);
  });

  it("puts bullets before any heading in the default section", () => {
    expect(parseMemory("- Likes short meetings [M1]").statements[0]!.section).toBe(DEFAULT_SECTION);
  });

  it("reports prose lines, empty statements and citations inside the text", () => {
    const { statements, problems } = parseMemory(
      "## Role\nShe is great.\n- [E1]\n- Per [E2] she leads payments [E3]",
    );
    expect(statements).toHaveLength(2);
    expect(problems).toEqual([
      'line 2 is neither a "## Section" heading nor a "- statement [ref]" bullet',
      "statement 0 (line 3) has no text",
      "statement 1 (line 4) has a citation inside its text; citations go at the end",
    ]);
  });
});
