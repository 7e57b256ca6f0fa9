import type { ItemStore } from "../domain/items";
import { extractMemoryBlock, type ParsedStatement, parseMemory } from "./parse-memory";
import type { RefTable } from "./refs";
import { markupProblem } from "./statement-markup";
import { MEMORY_CLOSE, MEMORY_OPEN } from "./wire-format";

/** Size bounds of a draft memory. */
export const DRAFT_BOUNDS = {
  minStatements: 1,
  maxStatements: 80,
  maxStatementChars: 400,
  maxCitationsPerStatement: 10,
  maxTotalChars: 20_000,
} as const;

export interface CheckedStatement extends ParsedStatement {
  itemIds: string[];
}

export type DraftCheck =
  | { ok: true; statements: CheckedStatement[] }
  | {
      ok: false;
      /** The final answer had no usable <memory> block at all (missing, unclosed or repeated). */
      missingBlock: boolean;
      failures: string[];
      /** Indexes of the statements at fault, for the verdict's `unsupported`. */
      offending: number[];
      /** A failure that belongs to no one statement (narration, size, layout): only a revision fixes it. */
      structural: boolean;
      /** Every parsed statement (with the ids of its visible cited items), faulty ones included. */
      statements: CheckedStatement[];
      /** Why each offending statement failed, by index. */
      reasons: Map<number, string[]>;
    };

export interface CheckContext {
  subjectKey: string;
  items: ItemStore;
  refs: RefTable;
}

/**
 * The deterministic checks run before the judge: one <memory> block and no narration outside it, well-formed
 * bullets, size bounds, a citation on every statement, statements in plain text (no prompt markup, no refs
 * outside the citations: statement-markup.ts), every cited ref handed out in this run, and every cited item
 * still visible to the subject (re-checked through the store, not trusted from the table).
 */
export async function checkDraft(finalText: string, ctx: CheckContext): Promise<DraftCheck> {
  const extraction = extractMemoryBlock(finalText);
  if (!extraction.ok) {
    const what = {
      missing: `the final answer has no ${MEMORY_OPEN}...${MEMORY_CLOSE} block`,
      unclosed: `the ${MEMORY_OPEN} block is not closed with ${MEMORY_CLOSE}`,
      multiple: `the final answer has more than one ${MEMORY_OPEN} block`,
    }[extraction.problem];
    return {
      ok: false,
      missingBlock: true,
      failures: [what],
      offending: [],
      structural: true,
      statements: [],
      reasons: new Map(),
    };
  }

  const failures: string[] = [];
  const offending = new Set<number>();
  const reasons = new Map<number, string[]>();
  let structural = false;
  const fail = (message: string, index?: number) => {
    failures.push(message);
    if (index === undefined) {
      structural = true;
      return;
    }
    offending.add(index);
    reasons.set(index, [...(reasons.get(index) ?? []), message]);
  };

  if (extraction.narration !== "") {
    fail(
      `text outside the ${MEMORY_OPEN} block ("${extraction.narration.slice(0, 80)}"); answer with the block only`,
    );
  }
  if (extraction.block.length > DRAFT_BOUNDS.maxTotalChars) {
    fail(`the memory is ${extraction.block.length} characters; at most ${DRAFT_BOUNDS.maxTotalChars}`);
  }
  const { statements, problems } = parseMemory(extraction.block);
  for (const problem of problems) fail(problem);
  if (statements.length < DRAFT_BOUNDS.minStatements) fail("the memory has no statement");
  if (statements.length > DRAFT_BOUNDS.maxStatements) {
    fail(`the memory has ${statements.length} statements; at most ${DRAFT_BOUNDS.maxStatements}`);
  }

  const ids = new Set<string>();
  for (const s of statements) {
    if (s.text.length > DRAFT_BOUNDS.maxStatementChars) {
      fail(
        `statement ${s.index} is ${s.text.length} characters; at most ${DRAFT_BOUNDS.maxStatementChars}`,
        s.index,
      );
    }
    if (s.refs.length === 0) fail(`statement ${s.index} ("${s.text.slice(0, 60)}") cites nothing`, s.index);
    const markup = markupProblem(s.text, ctx.refs);
    if (markup) fail(`statement ${s.index} ${markup}`, s.index);
    if (s.refs.length > DRAFT_BOUNDS.maxCitationsPerStatement) {
      fail(
        `statement ${s.index} cites ${s.refs.length} items; at most ${DRAFT_BOUNDS.maxCitationsPerStatement}`,
        s.index,
      );
    }
    for (const ref of s.refs) {
      const entry = ctx.refs.resolve(ref);
      if (entry) ids.add(entry.id);
      else fail(`statement ${s.index} cites ${ref}, which no tool result of this run returned`, s.index);
    }
  }

  const visible =
    ids.size > 0 ? new Set((await ctx.items.getMany(ctx.subjectKey, [...ids])).map((i) => i.id)) : ids;
  const checked = statements.map((s) => {
    const itemIds: string[] = [];
    for (const ref of s.refs) {
      const entry = ctx.refs.resolve(ref);
      if (!entry) continue;
      if (visible.has(entry.id)) itemIds.push(entry.id);
      else fail(`statement ${s.index} cites ${entry.ref}, an item the subject cannot see`, s.index);
    }
    return { ...s, itemIds };
  });

  if (failures.length > 0) {
    const sorted = [...offending].sort((a, b) => a - b);
    return {
      ok: false,
      missingBlock: false,
      failures,
      offending: sorted,
      structural,
      statements: checked,
      reasons,
    };
  }
  return { ok: true, statements: checked };
}
