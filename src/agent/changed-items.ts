import type { ItemKind } from "../domain/item-schema";
import type { ActivityDigest, Item, ItemStore } from "../domain/items";
import { keyPeopleOf, type PeopleView } from "../domain/people-view";
import type { RefTable } from "./refs";
import { TOOL_LIMITS } from "./tools";
import { defuseTags, truncate } from "./untrusted";
import { TOOL_NAMES, UNTRUSTED_CLOSE, UNTRUSTED_OPEN } from "./wire-format";

/**
 * Bounds on the changed items a refresh names in its prompt. `listed` caps what the prompt carries (the
 * model is told how many more there are and how to list them); `fetched` caps the rows read to find them
 * (the store's "recent" also returns items that merely occur after the date, e.g. future events).
 */
export const CHANGED_ITEM_LIMITS = { listed: 25, fetched: 100 } as const;

/** People a refresh's digest names at most. */
const DIGEST_PEOPLE = 10;

/** One item created or updated since the previous memory, as the refresh prompt names it. */
export interface ChangedItem {
  ref: string;
  kind: ItemKind;
  change: "new" | "updated";
  /** The previous memory cites it: its statements may need another look. */
  cited: boolean;
  occurredAt: Date;
  author: string | null;
  title: string | null;
  /** The start of the body (bounded like a tool result's snippet). */
  body: string;
}

/** The context of a refresh: the digest's counts, the changed items by ref, and how many were left out. */
export interface RefreshChanges {
  digest: ActivityDigest;
  items: ChangedItem[];
  unlisted: number;
  /** Every changed item read (up to CHANGED_ITEM_LIMITS.fetched), newest first: the newer evidence. */
  changed: Item[];
}

/**
 * What changed since `since`, with the changed items registered as refs of this run (after the previous
 * memory's, so an updated item keeps the ref the previous memory shows; call it right after
 * preparePrevious): the model reads what changed by ref instead of searching for it. Newest first, as
 * recent_activity lists them. With the subject's people, the digest's most active people are persons (one
 * line for a colleague seen by address, chat account and login; never the subject), by the items that
 * occurred since; without, the store's author and participant strings.
 */
export async function prepareChanges(
  items: ItemStore,
  subjectKey: string,
  since: Date,
  refs: RefTable,
  people?: () => Promise<PeopleView>,
): Promise<RefreshChanges> {
  const [activity, recent, topPeople] = await Promise.all([
    items.digest(subjectKey, since),
    items.recent(subjectKey, { since, limit: CHANGED_ITEM_LIMITS.fetched }),
    people
      ? people().then((view) => digestPeople(view, since))
      : items.topPeople(subjectKey, { changedSince: since, limit: DIGEST_PEOPLE }),
  ]);
  const digest = { ...activity, topPeople };
  const changed = recent.filter((item) => item.updatedAt >= since);
  const listed = changed.slice(0, CHANGED_ITEM_LIMITS.listed).map((item) => {
    // Only the previous memory's citations are registered before this point.
    const cited = refs.refOf(item.id) !== undefined;
    return toChangedItem(item, refs.register(item), since, cited);
  });
  const total = count(digest.newByKind) + count(digest.updatedByKind);
  return { digest, items: listed, unlisted: Math.max(0, total - listed.length), changed };
}

function digestPeople(view: PeopleView, since: Date): ActivityDigest["topPeople"] {
  return keyPeopleOf(view, { since: since.toISOString(), limit: DIGEST_PEOPLE }).map(({ person, items }) => ({
    person: person.name,
    items,
  }));
}

function toChangedItem(item: Item, ref: string, since: Date, cited: boolean): ChangedItem {
  return {
    ref,
    kind: item.kind,
    change: item.createdAt >= since ? "new" : "updated",
    cited,
    occurredAt: item.occurredAt,
    author: item.author,
    title: item.title,
    body: item.body,
  };
}

const count = (byKind: Partial<Record<string, number>>) =>
  Object.values(byKind).reduce<number>((sum, n) => sum + (n ?? 0), 0);

/** Minute precision is enough for the model and saves tokens on every line: 2025-03-01T09:30Z. */
const minute = (date: Date) => `${date.toISOString().slice(0, 16)}Z`;

/**
 * The changed items in the prompt: a line of facts, then the title and the start of the body as one
 * untrusted block (item text; tags defused), title on its first line:
 *   - E4 email, updated, 2025-03-01T09:30Z, Dana Whitfield: <untrusted>Payments plan
 *   The target date moves to 10 March.</untrusted>
 * "new" is the default and left out. The author is bounded and its tags defused, as in tool results.
 */
export function renderChangedItems(changes: Omit<RefreshChanges, "changed">): string {
  if (changes.items.length === 0 && changes.unlisted === 0) return "";
  const lines = [
    `Changed items, newest first, new unless marked updated; title, then the start of the text (${TOOL_NAMES.readItem} gives all of it when cut):`,
  ];
  for (const item of changes.items) {
    const facts = [`${item.ref} ${item.kind}`];
    if (item.change === "updated") {
      facts.push(item.cited ? "updated (the previous memory cites it)" : "updated");
    }
    facts.push(minute(item.occurredAt));
    if (item.author !== null) facts.push(defuseTags(truncate(item.author, TOOL_LIMITS.nameChars)));
    const title = truncate((item.title ?? "(no title)").replace(/\s+/g, " "), TOOL_LIMITS.titleChars);
    const text = `${title}\n${truncate(item.body, TOOL_LIMITS.snippetChars)}`;
    lines.push(`- ${facts.join(", ")}: ${UNTRUSTED_OPEN}${defuseTags(text)}${UNTRUSTED_CLOSE}`);
  }
  if (changes.unlisted > 0) {
    lines.push(
      `${changes.unlisted} more changed items are not listed; ${TOOL_NAMES.recentActivity} since ${changes.digest.since.toISOString()} lists them.`,
    );
  }
  return lines.join("\n");
}
