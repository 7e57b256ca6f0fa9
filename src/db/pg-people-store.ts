/**
 * PeopleStore over Postgres. A viewer's evidence is read through the access rule (item-rows.ts visibleTo):
 * the sightings and hard links of items the viewer may see, so what they learn about people comes only from
 * those items; corrections are the workspace's (the application keeps those about identifiers the viewer
 * sees). One db.batch: one round trip. fingerprint() digests the same inputs in one cheap statement, so a
 * view resolved once can be served until they change (app/people-view-cache.ts).
 */
import { and, desc, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { Sighting } from "../domain/people/model";
import { MAX_EVIDENCE_SIGHTINGS, type PeopleStore, type StoredCorrection } from "../domain/people-store";
import { workspaceOf } from "../domain/workspaces";
import type { Db } from "./client";
import { scopedKey } from "./item-people-writes";
import { toDate, visibleBranches, visibleTo } from "./item-rows";
import { backfillPeopleBatch } from "./people-backfill";
import { items, workspaceMembers } from "./schema";
import { personCorrections } from "./schema-people";

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

/**
 * The viewer's newest sightings (at most MAX_EVIDENCE_SIGHTINGS, newest items first) in a lean shape: each distinct
 * (identifier, name, role, bot) once (part 1, numbered n), then each item once with its time and the numbers of its
 * sightings (part 2, newest first), then how many sightings the limit met (part 3: one more than the limit means the
 * oldest were left out, and the decoder drops that one). The access rule's two branches are each ordered and limited
 * through their own index and merged (as search reads them). At 100,000 items this carries about a quarter of the
 * bytes of a row per sighting.
 */
function sightingsQuery(db: Db, viewerKey: string) {
  const branch = (rule: SQL) => sql`(select ${scopedKey(sql`p.k`, sql`${items.id}`)} as key, p.n as name,
      p.r as role, p.b as bot, ${items.id} as item_id, ${items.occurredAt} as at
    from ${items} cross join lateral jsonb_to_recordset(${items.sightings}) as p(k text, r text, n text, b boolean)
    where ${rule} order by ${items.occurredAt} desc, ${items.id} desc limit ${MAX_EVIDENCE_SIGHTINGS + 1})`;
  const [owned, shared] = visibleBranches(viewerKey);
  return db.execute(sql`with s as (
      ${branch(owned)} union all ${branch(shared)}
      order by at desc, item_id desc limit ${MAX_EVIDENCE_SIGHTINGS + 1}),
    shapes as (select key, name, role, bot, (row_number() over ())::int as n
      from (select key, name, role, bot from s group by key, name, role, bot) g),
    refs as (select s.item_id, s.at, shapes.n from s join shapes on shapes.key = s.key and shapes.role = s.role
      and shapes.bot = s.bot and shapes.name is not distinct from s.name)
    select * from (
      select 1 as part, n, key, name, role, case when bot then 1 else 0 end as bot,
        null::text as item_id, null::text as at, null::text as refs from shapes
      union all
      select 2, null, null, null, null, null, item_id::text,
        to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), string_agg(n::text, ',')
        from refs group by item_id, at
      union all
      select 3, (select count(*) from s)::int, null, null, null, null, null, null, null
    ) parts order by part, at collate "C" desc, item_id collate "C" desc`);
}

/** The hard links of the viewer's newest items that make any (at most MAX_EVIDENCE_LINKS). */
function linksQuery(db: Db, viewerKey: string) {
  return db
    .select({
      a: sql<string>`${scopedKey(sql`l.a`, sql`${items.id}`)}`,
      b: sql<string>`${scopedKey(sql`l.b`, sql`${items.id}`)}`,
      itemId: items.id,
    })
    .from(items)
    .innerJoin(sql`lateral jsonb_to_recordset(${items.personLinks}) as l(a text, b text)`, sql`true`)
    .where(and(visibleTo(viewerKey), sql`${items.personLinks} <> '[]'::jsonb`))
    .orderBy(desc(items.occurredAt), desc(items.id))
    .limit(MAX_EVIDENCE_LINKS);
}

export type SightingRow = {
  part: number;
  n: number | null;
  key: string | null;
  name: string | null;
  role: string | null;
  bot: number | null;
  item_id: string | null;
  at: string | null;
  refs: string | null;
};

/**
 * Back to one Sighting per (item, identifier, name, role), newest items first, at most `limit`; `truncated`
 * when the statement met more than the limit (part 3), so the oldest were left out.
 */
export function decodeSightings(
  rows: SightingRow[],
  limit = MAX_EVIDENCE_SIGHTINGS,
): { sightings: Sighting[]; truncated: boolean } {
  const shapes = new Map<number, { key: string; name: string | null; role: string; bot: boolean }>();
  const sightings: Sighting[] = [];
  let met = 0;
  for (const r of rows) {
    const part = Number(r.part);
    if (part === 1) {
      shapes.set(Number(r.n), { key: r.key!, name: r.name, role: r.role!, bot: Number(r.bot) === 1 });
    } else if (part === 2) {
      for (const ref of r.refs!.split(",")) {
        if (sightings.length === limit) break;
        const shape = shapes.get(Number(ref))!;
        sightings.push({
          key: shape.key,
          name: shape.name,
          role: shape.role,
          itemId: r.item_id!,
          at: r.at!,
          ...(shape.bot ? { bot: true as const } : {}),
        });
      }
    } else if (part === 3) {
      met = Number(r.n);
    }
  }
  return { sightings, truncated: met > limit };
}

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
        sightingsQuery(db, viewerKey),
        linksQuery(db, viewerKey),
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
        ...decodeSightings(sightings.rows as unknown as SightingRow[]),
        hardLinks: links,
        corrections: corrections.map(toCorrection),
        memberEmail: member[0]?.email ?? null,
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
