/**
 * PeopleStore over Postgres. A viewer's evidence is read through the access rule (item-rows.ts visibleTo):
 * the sightings and hard links of items the viewer may see, so what they learn about people comes only from
 * those items; corrections are the workspace's (the application keeps those about identifiers the viewer
 * sees). One db.batch: one round trip.
 */
import { and, desc, eq, isNull } from "drizzle-orm";
import type { PeopleStore, StoredCorrection } from "../domain/people-store";
import { workspaceOf } from "../domain/workspaces";
import type { Db } from "./client";
import { toDate, visibleTo } from "./item-rows";
import { items, workspaceMembers } from "./schema";
import { itemPeople, itemPersonLinks, personCorrections } from "./schema-people";

/** Sightings one read loads at most (newest items first); past it the oldest are left out. */
export const MAX_EVIDENCE_SIGHTINGS = 50_000;
const MAX_EVIDENCE_LINKS = 20_000;
const MAX_CORRECTIONS = 5_000;

type CorrectionRow = typeof personCorrections.$inferSelect;

const toCorrection = (row: CorrectionRow): StoredCorrection => ({
  id: row.id,
  kind: row.kind,
  a: row.a,
  b: row.b,
  authorKey: row.authorKey,
  createdAt: toDate(row.createdAt),
  withdrawnAt: row.withdrawnAt ? toDate(row.withdrawnAt) : null,
});

export function createPgPeopleStore(db: Db): PeopleStore {
  return {
    async evidence(viewerKey) {
      const workspace = workspaceOf(viewerKey);
      const [sightings, links, corrections, member] = await db.batch([
        db
          .select({
            key: itemPeople.identifier,
            name: itemPeople.name,
            role: itemPeople.role,
            bot: itemPeople.bot,
            itemId: itemPeople.itemId,
            at: items.occurredAt,
          })
          .from(items)
          .innerJoin(itemPeople, eq(itemPeople.itemId, items.id))
          .where(visibleTo(viewerKey))
          .orderBy(desc(items.occurredAt), desc(items.id))
          .limit(MAX_EVIDENCE_SIGHTINGS + 1),
        db
          .select({ a: itemPersonLinks.a, b: itemPersonLinks.b, itemId: itemPersonLinks.itemId })
          .from(items)
          .innerJoin(itemPersonLinks, eq(itemPersonLinks.itemId, items.id))
          .where(visibleTo(viewerKey))
          .orderBy(desc(items.occurredAt), desc(items.id))
          .limit(MAX_EVIDENCE_LINKS),
        db
          .select()
          .from(personCorrections)
          .where(and(eq(personCorrections.workspaceId, workspace), isNull(personCorrections.withdrawnAt)))
          .orderBy(personCorrections.createdAt, personCorrections.id)
          .limit(MAX_CORRECTIONS),
        db
          .select({ email: workspaceMembers.email })
          .from(workspaceMembers)
          .where(and(eq(workspaceMembers.memberKey, viewerKey), isNull(workspaceMembers.removedAt))),
      ]);
      return {
        sightings: sightings.slice(0, MAX_EVIDENCE_SIGHTINGS).map((s) => ({
          key: s.key,
          name: s.name,
          role: s.role,
          itemId: s.itemId,
          at: toDate(s.at).toISOString(),
          ...(s.bot ? { bot: true as const } : {}),
        })),
        hardLinks: links,
        corrections: corrections.map(toCorrection),
        memberEmail: member[0]?.email ?? null,
        truncated: sightings.length > MAX_EVIDENCE_SIGHTINGS,
      };
    },

    async corrections(workspaceId, options) {
      const rows = await db
        .select()
        .from(personCorrections)
        .where(
          and(
            eq(personCorrections.workspaceId, workspaceId),
            options.withdrawn ? undefined : isNull(personCorrections.withdrawnAt),
          ),
        )
        .orderBy(desc(personCorrections.createdAt), desc(personCorrections.id))
        .limit(options.limit);
      return rows.map(toCorrection);
    },

    async addCorrection(workspaceId, correction) {
      await db.insert(personCorrections).values({
        id: correction.id,
        workspaceId,
        kind: correction.kind,
        a: correction.a,
        b: correction.b,
        authorKey: correction.authorKey,
        createdAt: correction.createdAt,
      });
    },

    async withdrawCorrection(workspaceId, id, at) {
      const rows = await db
        .update(personCorrections)
        .set({ withdrawnAt: at })
        .where(
          and(
            eq(personCorrections.id, id),
            eq(personCorrections.workspaceId, workspaceId),
            isNull(personCorrections.withdrawnAt),
          ),
        )
        .returning();
      return rows[0] ? toCorrection(rows[0]) : null;
    },

    async setMemberEmail(memberKey, email) {
      const rows = await db
        .update(workspaceMembers)
        .set({ email })
        .where(eq(workspaceMembers.memberKey, memberKey))
        .returning({ key: workspaceMembers.memberKey });
      return rows.length > 0;
    },
  };
}
