/** The workspace's people corrections (drizzle/0015) and the version of each owner's items (drizzle/0020). */
import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, primaryKey, smallint, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./schema-columns";

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
 * The same triggers keep the owner's item count (drizzle/0025: +rows on insert, -rows on delete), which
 * keyword ranking reads as its N. Spread over 16 slots by transaction, the version and the count being
 * their sums, so one owner's concurrent writes rarely wait on one row.
 */
export const itemVersions = pgTable(
  "item_versions",
  {
    ownerId: text("owner_id").notNull(),
    slot: smallint("slot").notNull(),
    version: bigint("version", { mode: "number" }).notNull().default(0),
    items: bigint("items", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ name: "item_versions_pk", columns: [t.ownerId, t.slot] })],
);
