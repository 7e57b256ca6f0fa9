/** Column selections, the access rule and row mapping shared by the item store's queries. */
import { and, eq, ne, or, type SQL, sql } from "drizzle-orm";
import type { Item, ItemSummary } from "../domain/items";
import { localName } from "../domain/workspaces";
import { items, OWNER_KIND_SEPARATOR, ownerKeys } from "./schema";
import { itemVersions } from "./schema-people";

/**
 * The access rule, in SQL, for every read: a subject (user or team key) sees an item it owns, or whose
 * shared_with names it or a team it belongs to. Keys carry the workspace, so nothing crosses workspaces.
 */
export function visibleTo(subjectKey: string, table: typeof items = items): SQL {
  return or(...visibleBranches(subjectKey, table))!;
}

/**
 * The same rule as two disjoint conditions, each with an index of its own: what the viewer owns (by
 * owner_id), and what is shared with them or their teams by someone else (by shared_with). A query that
 * orders and limits reads each branch through its index and merges them (item-search.ts).
 */
export function visibleBranches(subjectKey: string, table: typeof items = items): [owned: SQL, shared: SQL] {
  return [
    eq(table.ownerId, subjectKey),
    and(
      ne(table.ownerId, subjectKey),
      sql`${table.sharedWith} && ${principalsOf(sql`${subjectKey}::text`)}`,
    )!,
  ];
}

/**
 * The items shared with the viewer (the rule's shared branch) as a subquery named `items`, with each row's
 * address as `tid`. Fenced by OFFSET 0, it finds its rows by the shared_with index alone and a query's other
 * conditions are tested on them (item-search.ts visibleRows says why); the columns a query does not use are
 * left out of it.
 */
export function sharedItems(subjectKey: string): SQL {
  const [, shared] = visibleBranches(subjectKey);
  return sql`(select ctid as tid, * from ${items} where ${shared} offset 0) ${items}`;
}

/**
 * The owned branch of the rule as the text index reads it, and with `kinds` only the viewer's items of those
 * kinds: that index is keyed by owner and by owner and kind too (drizzle/0027, 0028), so one scan of it finds
 * the viewer's own items matching a query's terms (of those kinds, naming a person filter's identifiers).
 * - Written as owner_id = …, the planner ANDed the terms' matches (every owner's) with a bitmap of all the
 *   owner's items from a btree: 14-23 ms at 100,000 items.
 * - A kind filter beside it, with no owner there, was read from the (owner_id, kind, …) btree for every
 *   owner: 46 ms for two kinds at 100,000 items beside 100,000 of other users.
 * Only for reads through the text index: a newest-first walk keeps owner_id = … and the btree's order.
 */
export function ownedInTextIndex(subjectKey: string, kinds: readonly string[] = []): SQL {
  const keys = ownerKeys(items);
  const owned = sql`${keys} @> array[${subjectKey}::text]`;
  if (kinds.length === 0) return owned;
  const ownersKinds = kinds.map((kind) => `${subjectKey}${OWNER_KIND_SEPARATOR}${kind}`);
  return sql`(${owned} and ${keys} && ${sql.param(ownersKinds)}::text[])`;
}

/**
 * How many items the subject owns, as the triggers on items keep it per owner (item_versions,
 * drizzle/0025): one indexed lookup, committed with every write and read in the statement's snapshot.
 */
export function ownedCount(subjectKey: string): SQL {
  return sql`(select coalesce(sum(${itemVersions.items}), 0) from ${itemVersions} where ${eq(itemVersions.ownerId, subjectKey)})`;
}

/** The keys a subject is addressed by in shared_with: its own and its teams' (text[]). */
export function principalsOf(subjectKey: SQL): SQL {
  return sql`(array[${subjectKey}] || array(select tm.team_key from team_members tm where tm.member_key = ${subjectKey}))`;
}

export const itemColumns = {
  id: items.id,
  ownerId: items.ownerId,
  source: items.source,
  externalId: items.externalId,
  kind: items.kind,
  title: items.title,
  body: items.body,
  author: items.author,
  participants: items.participants,
  occurredAt: items.occurredAt,
  createdAt: items.createdAt,
  updatedAt: items.updatedAt,
  url: items.url,
  metadata: items.metadata,
  sharedWith: items.sharedWith,
};

export const summaryColumns = {
  id: items.id,
  kind: items.kind,
  source: items.source,
  externalId: items.externalId,
  title: items.title,
  author: items.author,
  occurredAt: items.occurredAt,
};

/**
 * drizzle maps timestamp columns to Date in query-builder selects, but values that arrive through raw
 * SQL (or a driver that already parsed them) may be strings or Dates: this accepts both.
 */
export function toDate(value: Date | string): Date {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`not a timestamp: ${String(value)}`);
  return date;
}

/** Rows hold keys; the API shows owner and share targets by their names in the workspace. */
export function toItem(row: Item): Item {
  return {
    ...row,
    ownerId: localName(row.ownerId),
    sharedWith: row.sharedWith.map(localName),
    occurredAt: toDate(row.occurredAt),
    createdAt: toDate(row.createdAt),
    updatedAt: toDate(row.updatedAt),
    metadata: row.metadata ?? {},
  };
}

export function toSummary(row: ItemSummary): ItemSummary {
  return { ...row, occurredAt: toDate(row.occurredAt) };
}
