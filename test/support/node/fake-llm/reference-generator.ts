/**
 * The deterministic reference generator: researches with the offered tools, then answers with one cited
 * <memory> block built only from text the tools returned (whole sentences of what it read), so every
 * statement is supported by the items it cites. The conversation so far is its only state: the same
 * request always gets the same reply.
 *
 * First generation (4 turns): top_people + recent_activity; search_items on a few words; read_item on the
 * most relevant refs; the final answer.
 * Refresh (<previous_memory> in the system prompt; 1-3 turns): the changed items the prompt lists by ref
 * (recent_activity since the previous generation only when the prompt lists none, or not all of them);
 * read_item only on changed items of the digest's busiest threads whose text was cut; the final answer
 * keeping every previous line and adding statements from what was read and from whole sentences of the
 * changed items' shown text.
 */
import {
  MEMORY_CLOSE,
  MEMORY_OPEN,
  SECTIONS,
  TEAM_SECTIONS,
  TOOL_NAMES,
} from "../../../../src/agent/wire-format";
import type { FakeReply, FakeToolCall, NeutralRequest } from "./protocol";
import { contentWords, isoDates, sentences, stripUntrusted, tagged } from "./text";

const SEARCH_QUERIES = ["decided", "deadline", "promised", "prefers", "project"];
const READS_FIRST_RUN = 10;
const READS_REFRESH = 3;
const RECENT_LIMIT_REFRESH = 20;
const MAX_STATEMENTS_FIRST_RUN = 24;
const MAX_STATEMENTS_REFRESH = 12;
const PER_ITEM = 2;
const DAY_MS = 86_400_000;
const MIN_STATEMENT_CHARS = 12;
const MIN_CONTENT_WORDS = 2;

interface ItemInfo {
  ref: string;
  kind: string;
  title: string;
  occurredAt: string;
  body?: string;
  /** The snippet recent_activity gave: the start of the body (cut, with a marker, when longer). */
  prefix?: string;
  hits: number;
  searchHits: number;
  order: number;
}

interface Call {
  name: string;
  input: unknown;
  result?: { content: string; isError: boolean };
}

interface Knowledge {
  items: Map<string, ItemInfo>;
  people: string[];
  calls: Call[];
}

export function referenceGeneratorReply(request: NeutralRequest): FakeReply {
  const offered = new Set(request.tools.map((t) => t.name));
  const knowledge = gather(request);
  const called = new Set(knowledge.calls.map((c) => c.name));
  const previous = tagged(request.system, "previous_memory");
  const now = findNow(request.system);
  const calls: FakeToolCall[] = [];

  if (previous === null) {
    const orient = [TOOL_NAMES.topPeople, TOOL_NAMES.recentActivity].filter((t) => offered.has(t));
    if (orient.length > 0 && !orient.some((t) => called.has(t))) {
      if (offered.has(TOOL_NAMES.topPeople)) calls.push({ name: TOOL_NAMES.topPeople, input: {} });
      if (offered.has(TOOL_NAMES.recentActivity)) {
        calls.push({ name: TOOL_NAMES.recentActivity, input: { since: iso(now - 30 * DAY_MS) } });
      }
      return { toolCalls: calls };
    }
    if (offered.has(TOOL_NAMES.searchItems) && !called.has(TOOL_NAMES.searchItems)) {
      return {
        toolCalls: SEARCH_QUERIES.map((query) => ({ name: TOOL_NAMES.searchItems, input: { query } })),
      };
    }
    const reads = readCalls(knowledge, offered, READS_FIRST_RUN, () => true);
    if (reads) return reads;
  } else {
    const listed = changedItems(request.system);
    const needsList = listed === null || !listed.complete;
    if (needsList && offered.has(TOOL_NAMES.recentActivity) && !called.has(TOOL_NAMES.recentActivity)) {
      const since = iso(refreshSince(request.system, now));
      return {
        toolCalls: [{ name: TOOL_NAMES.recentActivity, input: { since, limit: RECENT_LIMIT_REFRESH } }],
      };
    }
    const cited = new Set([...previous.matchAll(/\[([A-Z]\d+)\]/g)].map((m) => m[1]));
    const recent = new Set([
      ...(listed?.cards ?? []).map((c) => c.ref),
      ...knowledge.calls
        .filter((c) => c.name === TOOL_NAMES.recentActivity && c.result && !c.result.isError)
        .flatMap((c) => cardRefs(c.result?.content ?? "")),
    ]);
    // Only the busiest changed threads are read in full; other new items are known by their snippets.
    const busiest = busiestThreads(request.system);
    const reads = readCalls(knowledge, offered, READS_REFRESH, (item) => {
      const truncated = item.prefix === undefined || TRUNCATED.test(item.prefix);
      return recent.has(item.ref) && !cited.has(item.ref) && busiest.has(threadKey(item.title)) && truncated;
    });
    if (reads) return reads;
  }
  return { text: referenceMemory(request) };
}

/** The final answer the reference policy gives for this conversation: one <memory> block. */
export function referenceMemory(request: NeutralRequest): string {
  return `${MEMORY_OPEN}\n${referenceMemoryBody(request)}\n${MEMORY_CLOSE}`;
}

/** The markdown inside the <memory> block. */
export function referenceMemoryBody(request: NeutralRequest): string {
  const knowledge = gather(request);
  const previous = tagged(request.system, "previous_memory");
  const sections = new Map<string, string[]>(SECTIONS.map((s) => [s, []]));
  const seen = new Set<string>();

  if (previous !== null) {
    let section: string = SECTIONS[1];
    for (const line of previous.split("\n")) {
      const heading = /^##\s+(.+)$/.exec(line.trim());
      if (heading?.[1]) section = heading[1].trim();
      else if (line.trim().startsWith("- ")) {
        sections.set(section, [...(sections.get(section) ?? []), line.trim()]);
        seen.add(
          normalize(
            line
              .trim()
              .slice(2)
              .replace(/(\s*\[[A-Z]\d+\])+\s*$/, ""),
          ),
        );
      }
    }
  }

  const budget = previous === null ? MAX_STATEMENTS_FIRST_RUN : MAX_STATEMENTS_REFRESH;
  const names = personNames(knowledge.people);
  // A refresh also writes from the snippets of new items it did not read (whole sentences only).
  const textOf = (i: ItemInfo) => i.body ?? (previous === null ? undefined : i.prefix);
  const withText = ranked(knowledge).filter((i) => textOf(i) !== undefined);
  let added = 0;
  for (const item of withText) {
    let fromItem = 0;
    for (const sentence of sentences(textOf(item) ?? "")) {
      if (added >= budget || fromItem >= PER_ITEM) break;
      const text = sentence.replace(/[.!]+$/, "");
      if (!usable(text) || seen.has(normalize(text))) continue;
      seen.add(normalize(text));
      const refs = withText
        .filter((other) => normalize(textOf(other) ?? "").includes(normalize(text)))
        .map((o) => o.ref);
      const section = classify(text, names);
      sections.set(section, [
        ...(sections.get(section) ?? []),
        `- ${text} ${refs.map((r) => `[${r}]`).join("")}`,
      ]);
      added++;
      fromItem++;
    }
  }

  const feedback = revisionFeedback(request);
  const titleOf = asksForTeamSections(request.system) ? (t: string) => TEAM_TITLE[t] ?? t : (t: string) => t;
  return [...sections.entries()]
    .map(([title, lines]) => [titleOf(title), lines.filter((l) => !quotedIn(l, feedback))] as const)
    .filter(([, lines]) => lines.length > 0)
    .map(([title, lines]) => `## ${title}\n${lines.join("\n")}`)
    .join("\n\n");
}

/** A team's memory (the prompt lists the team sections): the person sections' facts under their team names. */
const TEAM_TITLE: Record<string, string> = Object.fromEntries(
  [
    ["Role and team", "Mission and scope"],
    ["Current projects", "Current projects and owners"],
    ["Key people and relationships", "Key people and partners"],
    ["Commitments and deadlines", "Commitments and deadlines"],
    ["Decisions", "Decisions"],
    ["Preferences and working style", "How the team works"],
  ].filter(([from, to]) => SECTIONS.includes(from as never) && TEAM_SECTIONS.includes(to as never)),
);

const asksForTeamSections = (system: string): boolean => TEAM_SECTIONS.every((s) => system.includes(s));

function readCalls(
  knowledge: Knowledge,
  offered: Set<string>,
  max: number,
  wanted: (item: ItemInfo) => boolean,
): FakeReply | null {
  if (!offered.has(TOOL_NAMES.readItem)) return null;
  if (knowledge.calls.some((c) => c.name === TOOL_NAMES.readItem)) return null;
  const refs = ranked(knowledge)
    .filter((i) => i.body === undefined && wanted(i))
    .slice(0, max)
    .map((i) => i.ref);
  if (refs.length === 0) return null;
  return { toolCalls: refs.map((ref) => ({ name: TOOL_NAMES.readItem, input: { ref } })) };
}

/** Everything the tools returned so far in this conversation. */
function gather(request: NeutralRequest): Knowledge {
  const calls = new Map<string, Call>();
  const ordered: Call[] = [];
  for (const message of request.messages) {
    for (const block of message.content) {
      if (block.type === "tool_call") {
        const call: Call = { name: block.name, input: block.input };
        calls.set(block.id, call);
        ordered.push(call);
      } else if (block.type === "tool_result") {
        const call = calls.get(block.toolCallId);
        if (call) call.result = { content: block.content, isError: block.isError };
      }
    }
  }
  const items = new Map<string, ItemInfo>();
  const people: string[] = [];
  const upsert = (card: Record<string, unknown>, tool: string) => {
    if (typeof card.ref !== "string") return;
    const info = items.get(card.ref) ?? {
      ref: card.ref,
      kind: String(card.kind ?? ""),
      title: stripUntrusted(String(card.title ?? "")),
      occurredAt: String(card.occurredAt ?? ""),
      hits: 0,
      searchHits: 0,
      order: items.size,
    };
    info.hits++;
    if (tool === TOOL_NAMES.searchItems) info.searchHits++;
    if (typeof card.body === "string") info.body = stripUntrusted(card.body);
    if ((tool === TOOL_NAMES.recentActivity || tool === CHANGES) && typeof card.snippet === "string") {
      info.prefix = stripUntrusted(card.snippet);
    }
    items.set(info.ref, info);
  };
  for (const card of changedItems(request.system)?.cards ?? []) upsert(card, CHANGES);
  for (const call of ordered) {
    if (!call.result || call.result.isError) continue;
    const value = parseJson(call.result.content);
    if (!isRecord(value)) continue;
    if (Array.isArray(value.items))
      for (const card of value.items) if (isRecord(card)) upsert(card, call.name);
    if (typeof value.ref === "string") upsert(value, call.name);
    if (Array.isArray(value.people)) {
      for (const p of value.people) {
        const name = typeof p === "string" ? p : isRecord(p) ? (p.person ?? p.name) : undefined;
        if (typeof name === "string") people.push(name);
      }
    }
  }
  return { items, people, calls: ordered };
}

/** Where the changed items a refresh prompt lists come from, for gather(). */
const CHANGES = "changes_since_previous";

type ListedCard = { ref: string; kind: string; title: string; occurredAt: string; snippet: string };

/**
 * The changed items listed in the refresh prompt's <changes_since_previous>, each as
 *   "- E4 email[, updated], 2025-03-01T09:30Z, Dana: <untrusted>title\ntext</untrusted>";
 * null when the prompt lists none. Not complete when it says more changed items are not listed.
 */
function changedItems(system: string): { cards: ListedCard[]; complete: boolean } | null {
  const changes = tagged(system, "changes_since_previous");
  if (changes === null) return null;
  const cards = [
    ...changes.matchAll(
      /^- ([A-Z]\d+) (\w+), [^\n]*?(\d{4}-\d{2}-\d{2}T[\d:.]+Z)[^\n]*?: <untrusted>([^\n]*)\n([\s\S]*?)<\/untrusted>/gm,
    ),
  ].map((m) => ({
    ref: m[1] ?? "",
    kind: m[2] ?? "",
    occurredAt: isoOrAsIs(m[3] ?? ""),
    title: m[4] ?? "",
    snippet: m[5] ?? "",
  }));
  if (cards.length === 0) return null;
  return { cards, complete: !/more changed items are not listed/i.test(changes) };
}

function cardRefs(content: string): string[] {
  const value = parseJson(content);
  if (!isRecord(value) || !Array.isArray(value.items)) return [];
  return value.items.filter(isRecord).flatMap((c) => (typeof c.ref === "string" ? [c.ref] : []));
}

/** Most relevant first: found by searches, then seen most often, then newest, then first seen. */
function ranked(knowledge: Knowledge): ItemInfo[] {
  const score = (i: ItemInfo) => i.searchHits * 2 + i.hits;
  return [...knowledge.items.values()].sort(
    (a, b) => score(b) - score(a) || b.occurredAt.localeCompare(a.occurredAt) || a.order - b.order,
  );
}

const INSTRUCTION_LIKE = /\b(ignore|disregard|instructions?|system prompt|assistant|memory|tool|prompt)\b/i;
const SALUTATION = /^(hi|hello|hey|thanks|thank you|best|cheers|regards|dear|sent from)\b/i;

/**
 * A sentence worth a statement: a plain fact of at least two content words ("Prefers async updates" is one),
 * not a greeting, a question or an embedded instruction. A note of one short sentence is what a user writes
 * first: it must make a memory.
 */
function usable(text: string): boolean {
  return (
    text.length >= MIN_STATEMENT_CHARS &&
    text.length <= 200 &&
    contentWords(text).length >= MIN_CONTENT_WORDS &&
    !/[<>[\]‹{}]/.test(text) &&
    !text.endsWith("?") &&
    !INSTRUCTION_LIKE.test(text) &&
    !SALUTATION.test(text)
  );
}

const RULES: [RegExp, string][] = [
  [/\b(decided|decision|agreed|approved|chose|going with|settled on|signed off)\b/i, "Decisions"],
  [
    /\b(deadline|due|by (monday|tuesday|wednesday|thursday|friday|saturday|sunday|end of|eod|next)|promised|commit(ted|s)?|target date|no later than|will (send|deliver|ship|finish|review|share|prepare|draft))\b/i,
    "Commitments and deadlines",
  ],
  [/\b(role|team|manager|reports to|joined|head of|leads|lead of|director|engineer at)\b/i, "Role and team"],
  [
    /\b(prefers?|likes|rather|working style|async|do not schedule|don't schedule)\b/i,
    "Preferences and working style",
  ],
];

function classify(text: string, names: string[]): string {
  for (const [pattern, section] of RULES) if (pattern.test(text)) return section;
  if (names.some((n) => new RegExp(`\\b${escapeRegExp(n)}\\b`).test(text)))
    return "Key people and relationships";
  return "Current projects";
}

/** Capitalised name parts (e.g. "Dana" of "Dana Whitfield <dana@acme.test>"). */
function personNames(people: string[]): string[] {
  return [...new Set(people.flatMap((p) => p.match(/\b[A-Z][a-z]{2,}\b/g) ?? []))];
}

function findNow(system: string): number {
  const line = /^Now:\s*(\S+)/m.exec(system);
  const parsed = line?.[1] ? Date.parse(line[1]) : Number.NaN;
  if (!Number.isNaN(parsed)) return parsed;
  const dates = isoDates(system).map((d) => d.getTime());
  return dates.length > 0 ? Math.max(...dates) : Date.parse("2000-01-01T00:00:00Z");
}

/** "Since <ISO>" of the digest, else the previous generation's time, else a week before now. */
function refreshSince(system: string, now: number): number {
  const changes = tagged(system, "changes_since_previous");
  const since = changes ? /Since\s+(\S+?):?\s/i.exec(changes) : null;
  const fromDigest = since?.[1] ? Date.parse(since[1]) : Number.NaN;
  if (!Number.isNaN(fromDigest)) return fromDigest;
  const generated = /generated\s+(\d{4}-\d{2}-\d{2}T\S+?)[,.\s]/i.exec(system);
  const fromPrevious = generated?.[1] ? Date.parse(generated[1]) : Number.NaN;
  return Number.isNaN(fromPrevious) ? now - 7 * DAY_MS : fromPrevious;
}

/** Titles of the digest's busiest threads ("- <untrusted>title</untrusted> (N items)"), lower-cased. */
function busiestThreads(system: string): Set<string> {
  const changes = tagged(system, "changes_since_previous") ?? "";
  return new Set(
    [...changes.matchAll(/^- <untrusted>([\s\S]*?)<\/untrusted>/gm)].map((m) => threadKey(m[1] ?? "")),
  );
}

/** A title as a thread key: lower-cased, without "Re:" / "Fwd:" prefixes. */
function threadKey(title: string): string {
  return title
    .trim()
    .toLowerCase()
    .replace(/^((re|fwd?|aw):\s*)+/, "");
}

const TRUNCATED = /…\s*\[truncated/;

/** The judge's feedback when this is a revision round: the text of the user turn after a final answer. */
function revisionFeedback(request: NeutralRequest): string {
  const lastFinal = request.messages.findLastIndex(
    (m) => m.role === "assistant" && m.content.some((b) => b.type === "text" && b.text.includes(MEMORY_OPEN)),
  );
  if (lastFinal < 0) return "";
  return request.messages
    .slice(lastFinal + 1)
    .filter((m) => m.role === "user")
    .flatMap((m) => m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])))
    .join("\n");
}

function quotedIn(line: string, feedback: string): boolean {
  if (feedback === "") return false;
  const text = line.slice(2).replace(/(\s*\[[A-Z]\d+\])+\s*$/, "");
  return feedback.includes(text);
}

const isoOrAsIs = (date: string) => (Number.isNaN(Date.parse(date)) ? date : iso(Date.parse(date)));
const normalize = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();
const iso = (ms: number) => new Date(ms).toISOString();
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
