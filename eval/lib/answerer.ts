/**
 * The answerer: who decides whether a memory states a fact, whether cited items support a statement, and
 * what the memory answers to a question. An LLM (llm-answerer.ts) or the deterministic keyword answerer
 * below, which the fake LLM runs and CI use.
 */
import type { EvalFact } from "../../fixtures/demo/eval-types";
import { contentWords, wordForms } from "../../test/support/node/fake-llm/text";
import { matchesKeywords, mentionsAny } from "./keywords";
import type { CitedItem } from "./observation";

export interface Answerer {
  /** "keywords" or "provider:model". */
  readonly name: string;
  /** Does some statement of the memory state `fact`? */
  statesFact(statements: string[], fact: EvalFact): Promise<boolean>;
  /** Do the cited items (their text) support the statement? */
  supports(statement: string, cited: CitedItem[]): Promise<boolean>;
  /** The answer to `question` from the memory's statements alone ("" when it has none). */
  answer(statements: string[], question: string): Promise<string>;
  /** Tokens the answerer spent so far, per model (empty for the deterministic one). */
  usage(): Record<string, { inputTokens: number; outputTokens: number; calls: number }>;
}

/**
 * Deterministic: a fact is stated when one statement holds all its keywords and none of its `unless`
 * words; a statement is supported when every content word of it occurs in its cited items (the fake
 * judge's rule); a question is answered by the three statements sharing the most content words with it.
 */
export function keywordAnswerer(): Answerer {
  return {
    name: "keywords",
    async statesFact(statements, fact) {
      return statements.some((s) => statesFactByKeywords(s, fact));
    },
    async supports(statement, cited) {
      return supportedByWords(statement, cited);
    },
    async answer(statements, question) {
      return bestStatementFor(statements, question);
    },
    usage: () => ({}),
  };
}

export function statesFactByKeywords(statement: string, fact: EvalFact): boolean {
  return matchesKeywords(statement, fact.keywords) && !mentionsAny(statement, fact.unless);
}

export function supportedByWords(statement: string, cited: CitedItem[]): boolean {
  const visible = cited.filter((c) => c.visible);
  if (visible.length === 0) return false;
  const known = new Set<string>();
  for (const item of visible) {
    for (const w of contentWords(`${item.title}\n${item.body}`)) for (const f of wordForms(w)) known.add(f);
  }
  return contentWords(statement).every((w) => wordForms(w).some((f) => known.has(f)));
}

/** How many statements the deterministic answerer answers with (a retrieve-then-read baseline). */
export const ANSWER_STATEMENTS = 3;

/** The statements sharing the most content words with the question (at most ANSWER_STATEMENTS, best first). */
export function bestStatementFor(statements: string[], question: string): string {
  const asked = new Set(contentWords(question).flatMap(wordForms));
  return statements
    .map((s, order) => {
      const words = new Set(contentWords(s).flatMap(wordForms));
      return { s, order, score: [...asked].filter((w) => words.has(w)).length };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, ANSWER_STATEMENTS)
    .map((x) => x.s)
    .join("\n");
}
