import { MEMORY_CLOSE, MEMORY_OPEN } from "./wire-format";

export type Extraction =
  | { ok: true; block: string; narration: string }
  | { ok: false; problem: "missing" | "unclosed" | "multiple" };

/** Code-fence lines a model may put around its block; they are packaging, not narration. */
const FENCE_LINE = /^\s*```[\w-]*\s*$/gm;

/**
 * The <memory> block of the generator's FINAL answer (callers pass only that text, so a block drafted in
 * an earlier turn is never used). `narration` is whatever text surrounds the block.
 */
export function extractMemoryBlock(finalText: string): Extraction {
  const open = finalText.indexOf(MEMORY_OPEN);
  if (open < 0) return { ok: false, problem: "missing" };
  const start = open + MEMORY_OPEN.length;
  const close = finalText.indexOf(MEMORY_CLOSE, start);
  if (close < 0) return { ok: false, problem: "unclosed" };
  const block = finalText.slice(start, close);
  const rest = finalText.slice(close + MEMORY_CLOSE.length);
  if (block.includes(MEMORY_OPEN) || rest.includes(MEMORY_OPEN)) return { ok: false, problem: "multiple" };
  const narration = [finalText.slice(0, open), rest]
    .map((part) => part.replace(FENCE_LINE, "").trim())
    .filter((part) => part !== "")
    .join("\n");
  return { ok: true, block, narration };
}

export interface ParsedStatement {
  /** Position among all statements, from 0: the index the judge refers to. */
  index: number;
  section: string;
  text: string;
  /** Citations at the end of the line, upper-cased, without duplicates, in order. */
  refs: string[];
  /** 1-based line inside the block, for messages. */
  line: number;
}

export interface ParsedMemory {
  statements: ParsedStatement[];
  problems: string[];
}

/** The section a bullet gets when it comes before any heading. */
export const DEFAULT_SECTION = "General";

const HEADING = /^\s{0,3}#{1,3}\s+(.+?)\s*#*\s*$/;
const BULLET = /^\s*[-*•]\s+(.*)$/;
/** One citation group: [E12] or, leniently, [E12, M7]. */
const CITATION_GROUP = String.raw`\[\s*([A-Za-z]\d+(?:\s*[,;]\s*[A-Za-z]\d+)*)\s*\]`;
const TRAILING_CITATION = new RegExp(`${CITATION_GROUP}[\\s.;,]*$`);
const ANY_CITATION = new RegExp(CITATION_GROUP);

/** Splits "text [E1][M2]" into the text and its trailing refs. */
export function splitCitations(line: string): { text: string; refs: string[]; citationInText: boolean } {
  let text = line.trim();
  const groups: string[][] = [];
  for (let m = text.match(TRAILING_CITATION); m && m.index !== undefined; m = text.match(TRAILING_CITATION)) {
    groups.unshift(m[1]!.split(/[,;]/).map((r) => r.trim().toUpperCase()));
    text = text.slice(0, m.index).trimEnd();
  }
  return { text, refs: [...new Set(groups.flat())], citationInText: ANY_CITATION.test(text) };
}

/** Parses the block into sections and bullet statements; anything else is reported as a problem. */
export function parseMemory(block: string): ParsedMemory {
  const statements: ParsedStatement[] = [];
  const problems: string[] = [];
  let section = DEFAULT_SECTION;
  block.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    const heading = raw.match(HEADING);
    if (heading) {
      section = heading[1]!.trim();
      return;
    }
    const bullet = raw.match(BULLET);
    if (!bullet) {
      problems.push(`line ${line} is neither a "## Section" heading nor a "- statement [ref]" bullet`);
      return;
    }
    const { text, refs, citationInText } = splitCitations(bullet[1]!);
    const index = statements.length;
    if (text === "") problems.push(`statement ${index} (line ${line}) has no text`);
    if (citationInText)
      problems.push(
        `statement ${index} (line ${line}) has a citation inside its text; citations go at the end`,
      );
    statements.push({ index, section, text, refs, line });
  });
  return { statements, problems };
}
