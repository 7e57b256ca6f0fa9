/**
 * The two freshness scenarios that follow the refresh (EVAL.md): pure functions that build their input
 * from what the refreshed memory says, and that score what the next memory says.
 *
 * - Contradicted through links: for up to MAX_CONTRADICTIONS statements that date or count something
 *   ("<n> <word>") and cite an item the subject owns, a newer item that replies to that item (or @-mentions
 *   it) states the same with another figure. After one more refresh, how many of those statements are gone.
 * - Dismissed: one statement, quoting a sentence near the start of an item the subject owns, is dismissed;
 *   then that item is re-ingested with a metadata change (same words), so it is "changed" and a generator
 *   reading changed items is shown the sentence again. After one more refresh, whether the statement is
 *   absent, and whether the generator wrote it again (then the service's check is what kept it out).
 */
import type { ApiItem } from "../../fixtures/demo-workspace";
import type { ObservedStatement } from "./observation";

export const MAX_CONTRADICTIONS = 3;
/** The refresh prompt shows this much of a changed item's text (agent/tools.ts snippetChars). */
const SHOWN_CHARS = 300;

/** An item as GET /items/:id serves it (what re-ingesting it, or linking to it, needs). */
export interface ServedItem {
  id: string;
  ownerId: string;
  source: string;
  externalId: string;
  kind: ApiItem["kind"];
  title: string | null;
  body: string;
  author: string | null;
  participants: string[];
  occurredAt: string;
  url: string | null;
  metadata: Record<string, unknown>;
  sharedWith: string[];
  links: { direction: "outgoing" | "incoming"; kind: string; item: { source: string; externalId: string } }[];
}

export interface Contradiction {
  statement: ObservedStatement;
  via: "reply" | "mention";
  /** "15 December" → "22 December". */
  old: string;
  next: string;
  item: ApiItem;
}

/** The first "<figure> <word>" of a text, e.g. { figure: 15, unit: "December", phrase: "15 December" }. */
export function figureOf(text: string): { figure: number; unit: string; phrase: string } | null {
  const m = /\b(\d{1,4})[\s-]+([A-Za-z][A-Za-z-]{2,})/.exec(text);
  if (!m) return null;
  return { figure: Number(m[1]), unit: m[2]!, phrase: m[0] };
}

/** The contradicting items for the refreshed memory of `subjectId`, built at `now`. */
export function contradictionsFor(
  subjectId: string,
  statements: readonly ObservedStatement[],
  items: Readonly<Record<string, ServedItem | null>>,
  now: Date,
): Contradiction[] {
  const out: Contradiction[] = [];
  for (const statement of statements) {
    if (out.length >= MAX_CONTRADICTIONS) break;
    const found = figureOf(statement.text);
    const target = statement.citations.map((id) => items[id]).find((i) => i?.ownerId === subjectId);
    if (!found || !target) continue;
    const next = `${found.figure + 7} ${found.unit}`;
    const via = out.length % 2 === 0 ? "reply" : "mention";
    const changed = statement.text.replace(found.phrase, next);
    const n = out.length + 1;
    const body =
      via === "reply"
        ? `Correction: ${changed}.`
        : `Correction to @[${target.source}:${target.externalId}]: ${changed}.`;
    out.push({
      statement,
      via,
      old: found.phrase,
      next,
      item: {
        source: target.source,
        externalId: `eval-correction-${n}`,
        kind: target.kind,
        title: `Correction ${n}`,
        body,
        author: target.author ?? undefined,
        participants: target.participants,
        occurredAt: new Date(now.getTime() - n * 60_000).toISOString(),
        ...(via === "reply"
          ? { links: [{ source: target.source, externalId: target.externalId, kind: "reply" }] }
          : {}),
      },
    });
  }
  return out;
}

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}]{4,}/gu) ?? []);

/**
 * Whether the memory still serves the contradicted statement: one with its old figure (and not the new one)
 * and at least 80% of its words, so a rewording counts but another statement that happens to give the same
 * old date (citing an item the correction does not touch) does not.
 */
export function stillStated(statements: readonly ObservedStatement[], c: Contradiction): boolean {
  const wanted = words(c.statement.text);
  return statements.some((s) => {
    const text = s.text.toLowerCase();
    if (!text.includes(c.old.toLowerCase()) || text.includes(c.next.toLowerCase())) return false;
    const shared = [...words(s.text)].filter((w) => wanted.has(w)).length;
    return shared >= Math.ceil(0.8 * wanted.size);
  });
}

export interface DismissalPick {
  statement: ObservedStatement & { id: string };
  item: ServedItem;
}

/** A statement to dismiss: one quoting a sentence the refresh prompt would show of an item the subject owns. */
export function dismissalCandidate(
  subjectId: string,
  statements: readonly (ObservedStatement & { id?: string })[],
  items: Readonly<Record<string, ServedItem | null>>,
  avoid: ReadonlySet<string> = new Set(),
): DismissalPick | null {
  for (const statement of statements) {
    if (!statement.id || avoid.has(statement.text)) continue;
    for (const id of statement.citations) {
      const item = items[id];
      if (item?.ownerId !== subjectId) continue;
      if (item.body.slice(0, SHOWN_CHARS).includes(statement.text)) {
        return { statement: { ...statement, id: statement.id }, item };
      }
    }
  }
  return null;
}

/** The item as its owner would re-ingest it, with one metadata field changed: "updated", same words. */
export function touched(item: ServedItem, stamp: string): ApiItem {
  const links = item.links
    .filter((l) => l.direction === "outgoing")
    .map((l) => ({ source: l.item.source, externalId: l.item.externalId, kind: l.kind }));
  return {
    source: item.source,
    externalId: item.externalId,
    kind: item.kind,
    ...(item.title === null ? {} : { title: item.title }),
    body: item.body,
    ...(item.author === null ? {} : { author: item.author }),
    participants: item.participants,
    occurredAt: item.occurredAt,
    ...(item.url === null ? {} : { url: item.url }),
    metadata: { ...item.metadata, evalTouched: stamp },
    ...(item.sharedWith.length > 0 ? { sharedWith: item.sharedWith } : {}),
    ...(links.length > 0 ? { links } : {}),
  };
}

/** Whether any draft of the run states `text` (the generator wrote it again). */
export function restatedInDrafts(drafts: readonly string[], text: string): boolean {
  const needle = text.replace(/\s+/g, " ").trim().toLowerCase();
  return drafts.some((d) => d.replace(/\s+/g, " ").toLowerCase().includes(needle));
}
