/** Text helpers shared by the fake LLM's wire adapters and policies. Deterministic, no I/O. */
import type { NeutralBlock, NeutralRequest } from "./protocol";

/** The deterministic token estimate: ceil(chars / 4), at least 1. */
export function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

export function blockText(block: NeutralBlock): string {
  if (block.type === "text") return block.text;
  if (block.type === "tool_result") return block.content;
  return `${block.name} ${JSON.stringify(block.input)}`;
}

/** All the text of a request (system, messages, tool definitions): what `match` looks in, and what input tokens estimate. */
export function requestText(request: NeutralRequest): string {
  const parts = [request.system];
  for (const message of request.messages) for (const block of message.content) parts.push(blockText(block));
  return parts.join("\n");
}

export function inputTokens(request: NeutralRequest): number {
  return estimateTokens(requestText(request).length + JSON.stringify(request.tools).length);
}

const STOP_WORDS = new Set(
  `a about above after again against all also am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have having
  he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
  nor not now of off on once only or other our ours ourselves out over own same she should so some such than
  that the their theirs them themselves then there these they this those through to too under until up very
  was we were what when where which while who whom why will with would you your yours yourself yourselves
  been also per via yet let lets get got one two us may might must shall any every`
    .split(/\s+/)
    .filter(Boolean),
);

/** Lower-cased words of at least 3 letters/digits that are not stop words, in order. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (w) => w.length >= 3 && !STOP_WORDS.has(w),
  );
}

/** A word and its naive stems, so "deadlines" is supported by "deadline". */
export function wordForms(word: string): string[] {
  const forms = [word];
  for (const suffix of ["ing", "ed", "es", "s"]) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) forms.push(word.slice(0, -suffix.length));
  }
  return forms;
}

export function stripUntrusted(text: string): string {
  return text.replace(/<\/?untrusted>/g, "");
}

/** Splits prose into sentences; drops a trailing cut-off (truncated) fragment. */
export function sentences(text: string): string[] {
  const cut = text.search(/…\s*\[truncated/);
  const whole = cut >= 0 ? text.slice(0, cut) : text;
  const out: string[] = [];
  for (const paragraph of whole.split(/\n+/)) {
    const parts = paragraph.match(/[^.!?]+[.!?]+(?=\s|$)|[^.!?]+$/g) ?? [];
    for (const part of parts) {
      const s = part.replace(/\s+/g, " ").trim();
      if (s) out.push(s);
    }
  }
  if (cut >= 0 && out.length > 0 && !/[.!?]$/.test(out[out.length - 1] ?? "")) out.pop();
  return out;
}

const ISO_DATETIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

export function isoDates(text: string): Date[] {
  return (text.match(ISO_DATETIME) ?? []).map((s) => new Date(s)).filter((d) => !Number.isNaN(d.getTime()));
}

/** The text between <tag> and </tag>, or null. */
export function tagged(text: string, tag: string): string | null {
  const open = text.indexOf(`<${tag}>`);
  if (open < 0) return null;
  const close = text.indexOf(`</${tag}>`, open);
  return close < 0 ? null : text.slice(open + tag.length + 2, close);
}
