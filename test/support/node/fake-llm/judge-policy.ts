/**
 * The deterministic judge: parses the judge message (wire-format.ts) and checks that every content word
 * of each statement (lower-cased, stop words and words under 3 characters removed, naive plural/tense
 * stems allowed) occurs in the text of the items the statement cites. Answers with a submit_verdict call.
 *
 * Superseded: a supported statement shown with related="..." (a carried statement next to newer items) is
 * superseded by the first of those newer items that shares at least two of its content words (figures
 * aside) and gives another figure for the same thing: the statement says "<n> <word>" and the newer item
 * "<m> <word>" with m ≠ n ("15 December" next to "22 December", "14 days" next to "30 days"). A newer item
 * that gives no other figure for what the statement counts or dates leaves it current. Crude on purpose: it
 * stands in for a model's reading, and only the service decides what the judge is shown.
 */
import { JUDGE_TOOL } from "../../../../src/agent/wire-format";
import type { FakeReply, NeutralRequest } from "./protocol";
import { contentWords, stripUntrusted, wordForms } from "./text";

export interface JudgedStatement {
  index: number;
  cites: string[];
  text: string;
  /** Refs of the newer items shown with a carried statement (its related="..."). */
  related: string[];
}

export interface Verdict {
  accepted: boolean;
  reason: string;
  unsupported: number[];
  superseded: { index: number; by: string }[];
}

export function judgeReply(request: NeutralRequest): FakeReply {
  return { toolCalls: [{ name: JUDGE_TOOL, input: judge(judgeMessage(request)) }] };
}

/** The text of the last user message: where the judge prompt puts the statements and items. */
export function judgeMessage(request: NeutralRequest): string {
  const last = request.messages.findLast((m) => m.role === "user");
  return (last?.content ?? []).flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}

export function judge(message: string): Verdict {
  const statements = parseStatements(message);
  const items = parseItems(message);
  const bodies = parseBodies(message);
  const problems: string[] = [];
  const unsupported: number[] = [];
  const superseded: { index: number; by: string }[] = [];
  for (const statement of statements) {
    const problem = checkStatement(statement, items);
    if (problem) {
      unsupported.push(statement.index);
      problems.push(`statement ${statement.index}: ${problem}`);
      continue;
    }
    const by = supersededBy(statement, bodies);
    if (by) {
      superseded.push({ index: statement.index, by });
      problems.push(`statement ${statement.index}: ${by} is newer and states another figure`);
    }
  }
  if (statements.length === 0) {
    return { accepted: false, reason: "The draft has no statements to check.", unsupported: [], superseded };
  }
  return unsupported.length === 0 && superseded.length === 0
    ? {
        accepted: true,
        reason: `All ${statements.length} statements are supported by the items they cite.`,
        unsupported,
        superseded,
      }
    : { accepted: false, reason: problems.join("; "), unsupported, superseded };
}

/** "<figure> <word>" pairs of a text: the figure and the word after it, lower-cased. */
function figuresOf(text: string): { figure: string; unit: string }[] {
  return [...text.matchAll(/(\d+(?:[.,]\d+)*)[\s-]+([a-z][a-z-]*)/gi)].map((m) => ({
    figure: m[1] ?? "",
    unit: (m[2] ?? "").toLowerCase(),
  }));
}

const wordsOf = (text: string) =>
  new Set(
    contentWords(text)
      .filter((w) => !/^\d/.test(w))
      .flatMap(wordForms),
  );

/** The first related newer item that shares the statement's subject but states another figure, or null. */
function supersededBy(statement: JudgedStatement, bodies: Map<string, string>): string | null {
  const figures = figuresOf(statement.text);
  if (figures.length === 0) return null;
  const words = [...new Set(contentWords(statement.text).filter((w) => !/^\d/.test(w)))];
  for (const ref of statement.related) {
    const body = bodies.get(ref);
    if (body === undefined) continue;
    const known = wordsOf(body);
    const shared = words.filter((w) => wordForms(w).some((f) => known.has(f))).length;
    const newer = figuresOf(body);
    const other = figures.some(({ figure, unit }) =>
      newer.some((n) => n.unit === unit && n.figure !== figure),
    );
    if (shared >= 2 && other) return ref;
  }
  return null;
}

/** Each item's text without its From/Participants/Date header (whose digits are not figures). */
function parseBodies(message: string): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const m of message.matchAll(/<item\s+([^>]*)>([\s\S]*?)<\/item>/g)) {
    const attrs = parseAttributes(m[1] ?? "");
    if (!attrs.ref) continue;
    const text = stripUntrusted(decode(m[2] ?? ""));
    const blank = text.indexOf("\n\n");
    bodies.set(attrs.ref, `${attrs.title ?? ""}\n${blank >= 0 ? text.slice(blank + 2) : text}`);
  }
  return bodies;
}

function checkStatement(statement: JudgedStatement, items: Map<string, Set<string>>): string | null {
  if (statement.cites.length === 0) return "cites no item";
  const missing = statement.cites.filter((ref) => !items.has(ref));
  if (missing.length > 0) return `cites ${missing.join(", ")}, whose text was not given`;
  const known = new Set<string>();
  for (const ref of statement.cites) for (const form of items.get(ref) ?? []) known.add(form);
  const absent = [...new Set(contentWords(statement.text))].filter(
    (w) => !wordForms(w).some((f) => known.has(f)),
  );
  if (absent.length === 0) return null;
  return `${absent.map((w) => `"${w}"`).join(", ")} not found in ${statement.cites.join(", ")}`;
}

export function parseStatements(message: string): JudgedStatement[] {
  const out: JudgedStatement[] = [];
  for (const m of message.matchAll(/<statement\s+([^>]*)>([\s\S]*?)<\/statement>/g)) {
    const attrs = parseAttributes(m[1] ?? "");
    out.push({
      index: Number(attrs.index ?? out.length),
      cites: (attrs.cites ?? "").split(/[\s,]+/).filter(Boolean),
      text: decode(m[2] ?? ""),
      related: (attrs.related ?? "").split(/[\s,]+/).filter(Boolean),
    });
  }
  return out;
}

/** Each cited item's words (with their stems), from its title and text. */
function parseItems(message: string): Map<string, Set<string>> {
  const items = new Map<string, Set<string>>();
  for (const m of message.matchAll(/<item\s+([^>]*)>([\s\S]*?)<\/item>/g)) {
    const attrs = parseAttributes(m[1] ?? "");
    if (!attrs.ref) continue;
    const words = items.get(attrs.ref) ?? new Set<string>();
    for (const w of contentWords(`${attrs.title ?? ""}\n${stripUntrusted(decode(m[2] ?? ""))}`)) {
      for (const form of wordForms(w)) words.add(form);
    }
    items.set(attrs.ref, words);
  }
  return items;
}

function parseAttributes(text: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of text.matchAll(/([\w-]+)="([^"]*)"/g)) if (m[1]) attrs[m[1]] = decode(m[2] ?? "");
  return attrs;
}

function decode(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
