/**
 * The deterministic judge: parses the judge message (wire-format.ts) and checks that every content word
 * of each statement (lower-cased, stop words and words under 3 characters removed, naive plural/tense
 * stems allowed) occurs in the text of the items the statement cites. Answers with a submit_verdict call.
 */
import { JUDGE_TOOL } from "../../../../src/agent/wire-format";
import type { FakeReply, NeutralRequest } from "./protocol";
import { contentWords, stripUntrusted, wordForms } from "./text";

export interface JudgedStatement {
  index: number;
  cites: string[];
  text: string;
}

export interface Verdict {
  accepted: boolean;
  reason: string;
  unsupported: number[];
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
  const problems: string[] = [];
  const unsupported: number[] = [];
  for (const statement of statements) {
    const problem = checkStatement(statement, items);
    if (problem) {
      unsupported.push(statement.index);
      problems.push(`statement ${statement.index}: ${problem}`);
    }
  }
  if (statements.length === 0) {
    return { accepted: false, reason: "The draft has no statements to check.", unsupported: [] };
  }
  return unsupported.length === 0
    ? {
        accepted: true,
        reason: `All ${statements.length} statements are supported by the items they cite.`,
        unsupported,
      }
    : { accepted: false, reason: problems.join("; "), unsupported };
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
