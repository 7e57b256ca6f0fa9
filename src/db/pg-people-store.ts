/**
 * PeopleStore over Postgres. A viewer's evidence is read through the access rule (item-rows.ts visibleTo):
 * the sightings and hard links of items the viewer may see, so what they learn about people comes only from
 * those items; corrections are the workspace's (the application keeps those about identifiers the viewer
 * sees). One db.batch: one round trip. fingerprint() digests the same inputs in one cheap statement, so a
 * view resolved once can be served until they change (app/people-view-cache.ts).
 */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { PeopleStore, StoredCorrection } from "../domain/people-store";
import { workspaceOf } from "../domain/workspaces";
import type { Db } from "./client";
import { toDate, visibleBranches, visibleTo } from "./item-rows";
import { backfillPeopleBatch } from "./people-backfill";
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

/**
 * One statement of index lookups: the version of the viewer's own items (item_versions, bumped by triggers on
 * every write and delete of them, backfill included); over the items others share with the viewer or their
 * teams, how many and a sum of 64-bit hashes of (id, updated_at), so one gained, lost or rewritten changes it;
 * the same of the workspace's active corrections; the viewer's member address. Equal digests mean equal
 * evidence, but for two 64-bit sums colliding by chance.
 */
function fingerprintQuery(db: Db, viewerKey: string) {
  const workspace = workspaceOf(viewerKey);
  const [, shared] = visibleBranches(viewerKey);
  return db
    .select({
      shared: sql<string>`count(*)::text || ':' || coalesce(sum(hashtextextended(${items.id}::text || ${items.updatedAt}::text, 0)), 0)::text`,
      own: sql<string>`(select coalesce(sum(v.version), 0)::text from item_versions v where v.owner_id = ${viewerKey})`,
      corrections: sql<string>`(select count(*)::text || ':' || coalesce(sum(hashtextextended(c.id::text, 0)), 0)::text
        from person_corrections c where c.workspace_id = ${workspace} and c.withdrawn_at is null)`,
      email: sql<string | null>`(select m.email from workspace_members m
        where m.member_key = ${viewerKey} and m.removed_at is null limit 1)`,
    })
    .from(items)
    .where(shared);
}

type DigestRow = { own: string; shared: string; corrections: string; email: string | null };
const digestOf = (rows: DigestRow[]): string => {
  const row = rows[0];
  return row ? `${row.own}|${row.shared}|${row.corrections}|${row.email ?? ""}` : "";
};

export function createPgPeopleStore(db: Db): PeopleStore {
  return {
    async fingerprint(viewerKey) {
      return digestOf(await fingerprintQuery(db, viewerKey));
    },

    async evidence(viewerKey) {
      const workspace = workspaceOf(viewerKey);
      // The fingerprint first: read no later than the evidence, so a change between the two makes the next
      // read's fingerprint differ from the one kept with this view (never a newer fingerprint on older evidence).
      const [digest, sightings, links, corrections, member] = await db.batch([
        fingerprintQuery(db, viewerKey),
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
        fingerprint: digestOf(digest),
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

    backfill: (limit) => backfillPeopleBatch(db, limit),

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
