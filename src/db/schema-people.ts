/** The people items name, the hard links their records make, and the workspace's corrections (drizzle/0015). */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  pgTable,
  primaryKey,
  smallint,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { items } from "./schema";
import { timestamptz } from "./schema-columns";

/**
 * The people an item names: one row per (item, identifier, role), with the name the item gives the
 * identifier. Written with the item (item-upsert.ts) and removed with it by cascade; read only through the
 * items the viewer may see (db/people-reads.ts).
 */
export const itemPeople = pgTable(
  "item_people",
  {
    itemId: uuid("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    identifier: text("identifier").notNull(),
    role: text("role").notNull(),
    name: text("name"),
    /** The source marked the account as automated (a Slack bot, a GitHub `[bot]` login). */
    bot: boolean("bot").notNull().default(false),
  },
  // The key: reads go from visible items to their people. By identifier: the person filter finds a person's
  // items (item-search.ts namesAnyOf) without reading every row.
  (t) => [
    primaryKey({ name: "item_people_pk", columns: [t.itemId, t.identifier, t.role] }),
    index("item_people_identifier_idx").on(t.identifier, t.itemId),
  ],
);

/** Hard links one item's record makes between two identifiers (one account): removed with the item. */
export const itemPersonLinks = pgTable(
  "item_person_links",
  {
    itemId: uuid("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    a: text("a").notNull(),
    b: text("b").notNull(),
  },
  (t) => [primaryKey({ name: "item_person_links_pk", columns: [t.itemId, t.a, t.b] })],
);

/** A workspace's people corrections: merge, split, distinct; withdrawn ones keep their row. */
export const personCorrections = pgTable(
  "person_corrections",
  {
    id: uuid("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    kind: text("kind", { enum: ["merge", "split", "distinct"] }).notNull(),
    a: text("a").notNull(),
    b: text("b"),
    authorKey: text("author_key").notNull(),
    createdAt: timestamptz("created_at").notNull(),
    withdrawnAt: timestamptz("withdrawn_at"),
  },
  (t) => [
    index("person_corrections_workspace_idx").on(t.workspaceId, t.createdAt, t.id),
    check("person_corrections_kind_check", sql`${t.kind} in ('merge','split','distinct')`),
  ],
);

/**
 * A version per owner of their items, bumped by triggers on every statement that writes or deletes any of
 * them (drizzle/0020): a people read compares the viewer's with the version its kept view was resolved at.
 * Spread over 16 slots by transaction, the version being their sum, so one owner's concurrent writes rarely
 * wait on one row.
 */
export const itemVersions = pgTable(
  "item_versions",
  {
    ownerId: text("owner_id").notNull(),
    slot: smallint("slot").notNull(),
    version: bigint("version", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ name: "item_versions_pk", columns: [t.ownerId, t.slot] })],
);
