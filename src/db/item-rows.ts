/** Column selections, the access rule and row mapping shared by the item store's queries. */
import { arrayContains, eq, or, type SQL } from "drizzle-orm";
import type { Item, ItemSummary } from "../domain/items";
import { items } from "./schema";

/** The access rule, in SQL: the viewer owns the item or is in its shared_with. */
export function visibleTo(viewerId: string, table: typeof items = items): SQL {
  return or(eq(table.ownerId, viewerId), arrayContains(table.sharedWith, [viewerId]))!;
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

export function toItem(row: Item): Item {
  return {
    ...row,
    occurredAt: toDate(row.occurredAt),
    createdAt: toDate(row.createdAt),
    updatedAt: toDate(row.updatedAt),
    metadata: row.metadata ?? {},
  };
}

export function toSummary(row: ItemSummary): ItemSummary {
  return { ...row, occurredAt: toDate(row.occurredAt) };
}
