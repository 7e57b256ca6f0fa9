/**
 * Which newer evidence touches a carried statement. On a refresh the judge skips statements carried word
 * for word from the previous memory when their cited items did not change, which keeps a refresh cheap but
 * would also keep a superseded fact forever: a carried statement is never shown next to the newer item that
 * contradicts it. A statement related to a changed item is therefore judged again, next to that item.
 *
 * A finder is a port: `findRelated` answers, for each carried statement, the changed items related to it
 * and why. The one here (linkedEvidenceFinder) relates a statement to a changed item that
 *   - shares a thread with one of its cited items (metadata.threadId, a Slack thread, an email subject), or
 *   - is on an @-link path with one (reply, mention, reference, either direction; or a link into the
 *     cited item's thread), or
 *   - names one of the same people (besides the subject) and shares at least two of its distinctive terms.
 * With an embedder, semanticEvidenceFinder (semantic-evidence.ts) relates a statement to a changed item
 * whose chunks are near it; the composition root joins the two with combineFinders.
 */
import type { Item, ItemStore } from "../domain/items";
import { localName } from "../domain/workspaces";

export type RelationVia = "thread" | "link" | "people_and_terms" | "semantic";

export interface Relation {
  itemId: string;
  via: RelationVia;
}

export interface RelatedEvidenceQuery {
  subjectKey: string;
  /** The carried statements (index: the draft's). */
  statements: readonly { index: number; text: string; itemIds: readonly string[] }[];
  /** Their cited items, by id, as the subject sees them. */
  cited: ReadonlyMap<string, Item>;
  /** Items created or updated since the previous memory, newest first. */
  changed: readonly Item[];
}

export interface RelatedEvidenceFinder {
  /** The changed items related to each carried statement (absent: none), best first. */
  findRelated(query: RelatedEvidenceQuery): Promise<Map<number, Relation[]>>;
}

/** Bounds that keep the judge's message, and so a refresh, small. */
export const RELATED_LIMITS = {
  /** Newer items shown per statement. */
  perStatement: 2,
  /** Carried statements re-judged per run (the first ones of the draft that a changed item touches). */
  statements: 24,
  /** Linked items read to learn their thread (link into a cited item's thread). */
  neighbours: 200,
  /** Distinctive terms a statement and an item must share (with a person) to be related that way. */
  sharedTerms: 2,
  /** Carried statements embedded to look for near items (as many as a draft may have: checks.ts). */
  semanticStatements: 80,
  /** Changed items whose chunks are compared with them (the newest; all a refresh reads, today). */
  semanticItems: 100,
  /** Chunks compared per changed item: its first ones (about 7,000 characters at 512-token chunks). */
  semanticChunksPerItem: 4,
} as const;

const VIA_ORDER: Record<RelationVia, number> = { link: 0, thread: 1, people_and_terms: 2, semantic: 3 };

/**
 * The union of several finders' answers: each statement's relations deduplicated, best first, bounded;
 * at most RELATED_LIMITS.statements statements, the first ones of the draft.
 */
export function combineFinders(...finders: RelatedEvidenceFinder[]): RelatedEvidenceFinder {
  return {
    async findRelated(query) {
      const answers = await Promise.all(finders.map((f) => f.findRelated(query)));
      const all = new Map<number, Relation[]>();
      for (const answer of answers) {
        for (const [index, relations] of answer) all.set(index, [...(all.get(index) ?? []), ...relations]);
      }
      const order = new Map(query.statements.map((s, position) => [s.index, position]));
      const position = (index: number) => order.get(index) ?? Number.MAX_SAFE_INTEGER;
      const merged = new Map<number, Relation[]>();
      for (const index of [...all.keys()].sort((a, b) => position(a) - position(b) || a - b)) {
        if (merged.size >= RELATED_LIMITS.statements) break;
        merged.set(index, bestRelations(all.get(index)!));
      }
      return merged;
    },
  };
}

/** A statement's relations: one per item (its best reason), links first, at most perStatement. */
export function bestRelations(relations: Relation[]): Relation[] {
  const byItem = new Map<string, Relation>();
  for (const r of relations) {
    const known = byItem.get(r.itemId);
    if (!known || VIA_ORDER[r.via] < VIA_ORDER[known.via]) byItem.set(r.itemId, r);
  }
  return [...byItem.values()]
    .sort((a, b) => VIA_ORDER[a.via] - VIA_ORDER[b.via])
    .slice(0, RELATED_LIMITS.perStatement);
}

/** The finder over the item graph (threads, @-links) and over people with shared terms. */
export function linkedEvidenceFinder(items: Pick<ItemStore, "edgesOf" | "getMany">): RelatedEvidenceFinder {
  return {
    async findRelated({ subjectKey, statements, cited, changed }) {
      const related = new Map<number, Relation[]>();
      if (statements.length === 0 || changed.length === 0) return related;
      const changedIds = changed.map((c) => c.id);
      const edges = await items.edgesOf(subjectKey, changedIds);
      const neighbours = new Map<string, Set<string>>(changedIds.map((id) => [id, new Set<string>()]));
      for (const edge of edges) {
        neighbours.get(edge.fromId)?.add(edge.toId);
        neighbours.get(edge.toId)?.add(edge.fromId);
      }
      // The thread of every linked item, to follow a link into a cited item's thread.
      const known = new Map<string, Item>([...cited, ...changed.map((c) => [c.id, c] as const)]);
      const unknown = [...new Set([...neighbours.values()].flatMap((n) => [...n]))]
        .filter((id) => !known.has(id))
        .slice(0, RELATED_LIMITS.neighbours);
      if (unknown.length > 0)
        for (const item of await items.getMany(subjectKey, unknown)) known.set(item.id, item);
      const threadOf = (id: string) => {
        const item = known.get(id);
        return item ? threadKey(item) : null;
      };
      const self = personKeys([localName(subjectKey)]);

      for (const statement of statements) {
        if (related.size >= RELATED_LIMITS.statements) break;
        const own = statement.itemIds.flatMap((id) => {
          const item = cited.get(id);
          return item ? [item] : [];
        });
        if (own.length === 0) continue;
        const threads = new Set(own.map(threadKey).filter((t): t is string => t !== null));
        const people = without(personKeys(own.flatMap(peopleOf)), self);
        const terms = distinctiveTerms(statement.text, people);
        const found: Relation[] = [];
        for (const item of changed) {
          if (statement.itemIds.includes(item.id)) continue;
          const linked = neighbours.get(item.id) ?? new Set<string>();
          const itemThread = threadKey(item);
          if (
            statement.itemIds.some((id) => linked.has(id)) ||
            [...linked].some((id) => {
              const t = threadOf(id);
              return t !== null && threads.has(t);
            })
          ) {
            found.push({ itemId: item.id, via: "link" });
          } else if (itemThread !== null && threads.has(itemThread)) {
            found.push({ itemId: item.id, via: "thread" });
          } else if (
            intersects(people, without(personKeys(peopleOf(item)), self)) &&
            sharedCount(terms, termsOf(`${item.title ?? ""}\n${item.body}`)) >= RELATED_LIMITS.sharedTerms
          ) {
            found.push({ itemId: item.id, via: "people_and_terms" });
          }
        }
        if (found.length > 0) related.set(statement.index, bestRelations(found));
      }
      return related;
    },
  };
}

/** The thread an item belongs to: its threadId (email, chat), a Slack thread, else an email's subject. */
export function threadKey(item: Pick<Item, "kind" | "title" | "metadata">): string | null {
  const m = item.metadata;
  if (typeof m.threadId === "string" && m.threadId !== "") return `id:${m.threadId}`;
  if (typeof m.threadTs === "string" && m.threadTs !== "") {
    return `slack:${String(m.channelId ?? m.channel ?? "")}:${m.threadTs}`;
  }
  if (item.kind === "email" && item.title) {
    const subject = item.title
      .trim()
      .toLowerCase()
      .replace(/^((re|fwd?|aw|sv)\s*:\s*)+/, "");
    return subject === "" ? null : `subject:${subject}`;
  }
  return null;
}

const peopleOf = (item: Pick<Item, "author" | "participants">): string[] =>
  [item.author ?? "", ...item.participants].filter((p) => p.trim() !== "");

/**
 * A person as a key: the first name's letters, lower-cased ("Ben Castillo <ben@x.test>" → "ben"; an address
 * alone by its local part). Coarse on purpose: two people of one first name read as one, which at worst
 * sends one more statement to the judge.
 */
export function personKeys(people: readonly string[]): Set<string> {
  const keys = new Set<string>();
  for (const person of people) {
    const name = person.replace(/<[^>]*>/g, " ").trim();
    const source = name.includes("@") ? (name.split("@")[0] ?? "") : name;
    const first = source.toLowerCase().match(/\p{L}{2,}/u)?.[0];
    if (first) keys.add(first);
  }
  return keys;
}

const MONTHS_AND_DAYS = new Set(
  `january february march april may june july august september october november december jan feb mar apr jun
  jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday today tomorrow
  yesterday week weeks month months year years day days`.split(/\s+/),
);

/** Words that say little about what a statement is about. */
const GENERIC = new Set(
  `about above after again also before being below between both could does doing down during each from
  further have having here into just more most much once only other over same should some such than that
  their them then there these they this those through under until very what when where which while will
  with would your yours been were shall might must also still now next last team work working update
  updates note notes meeting call email message thanks please said says told asked going want wants need
  needs make makes made take takes done sure good great first second third every than decide decided
  decision decisions agree agreed move moves moved moving plan plans planned keep keeps kept start starts
  started send sends sent review reviews`.split(/\s+/),
);

const stem = (word: string) => (word.length > 4 && word.endsWith("s") ? word.slice(0, -1) : word);

/**
 * A text's terms: its words of four letters or more (hyphenated words whole), stemmed, without generic
 * words and calendar words; and its figures ("15" of "15 December", "14" of "14 days"), which name what a
 * statement is about as much as its words do.
 */
function termsOf(text: string): Set<string> {
  const terms = new Set<string>();
  for (const word of text.toLowerCase().match(/\p{L}[\p{L}\p{N}'-]*\p{L}|\p{L}/gu) ?? []) {
    if (word.length < 4 || GENERIC.has(word) || MONTHS_AND_DAYS.has(word)) continue;
    terms.add(stem(word));
  }
  for (const figure of text.match(/\p{N}+(?:[.,]\p{N}+)*/gu) ?? []) terms.add(`#${figure}`);
  return terms;
}

/** A statement's distinctive terms: its terms that are not the names of the people involved. */
function distinctiveTerms(text: string, people: ReadonlySet<string>): Set<string> {
  return without(termsOf(text), people);
}

function without(set: ReadonlySet<string>, removed: ReadonlySet<string>): Set<string> {
  return new Set([...set].filter((x) => !removed.has(x)));
}

const intersects = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => [...a].some((x) => b.has(x));

const sharedCount = (a: ReadonlySet<string>, b: ReadonlySet<string>): number =>
  [...a].filter((x) => b.has(x)).length;
