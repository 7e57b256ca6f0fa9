/** The item store's reads other than search. Every query carries the access rule for the viewer. */
import { aliasedTable, and, desc, eq, gte, inArray, isNotNull, or, type SQL, sql } from "drizzle-orm";
import type { ItemKind } from "../domain/item-schema";
import type { ActivityDigest, Item, ItemEdge, ItemLink } from "../domain/items";
import { isUuid } from "../domain/memory";
import { localName } from "../domain/workspaces";
import type { Db } from "./client";
import { itemColumns, toDate, toItem, toSummary, visibleTo } from "./item-rows";
import { itemLinks, items } from "./schema";

const MAX_LINKS = 200;
const DIGEST_THREADS = 5;

export async function getItem(
  db: Db,
  subjectKey: string,
  id: string,
): Promise<(Item & { links: ItemLink[] }) | null> {
  if (!isUuid(id)) return null;
  const [rows, outgoing, incoming] = await db.batch([
    db
      .select(itemColumns)
      .from(items)
      .where(and(eq(items.id, id), visibleTo(subjectKey))),
    outgoingQuery(db, subjectKey, id),
    incomingQuery(db, subjectKey, id),
  ]);
  const row = rows[0];
  if (!row) return null;
  return { ...toItem(row), links: toLinks(outgoing, incoming) };
}

export async function getManyItems(db: Db, subjectKey: string, ids: string[]): Promise<Item[]> {
  const valid = [...new Set(ids.filter(isUuid))];
  if (valid.length === 0) return [];
  const rows = await db
    .select(itemColumns)
    .from(items)
    .where(and(inArray(items.id, valid), visibleTo(subjectKey)));
  return rows.map(toItem);
}

export async function recentItems(
  db: Db,
  subjectKey: string,
  options: { since: Date; kinds?: ItemKind[]; limit: number },
): Promise<Item[]> {
  // "Occurred or changed since": an item that arrived late (a connector's backlog) is still recent news.
  const conditions: (SQL | undefined)[] = [
    visibleTo(subjectKey),
    or(gte(items.occurredAt, options.since), gte(items.updatedAt, options.since)),
  ];
  if (options.kinds?.length) conditions.push(inArray(items.kind, options.kinds));
  const rows = await db
    .select(itemColumns)
    .from(items)
    .where(and(...conditions))
    .orderBy(desc(items.occurredAt), desc(items.id))
    .limit(Math.max(1, Math.min(options.limit, 500)));
  return rows.map(toItem);
}

/** Links both ways, only to items the viewer may see; nothing if the item itself is not visible. */
export async function linkedItems(db: Db, subjectKey: string, id: string): Promise<ItemLink[]> {
  if (!isUuid(id)) return [];
  const [outgoing, incoming] = await db.batch([
    outgoingQuery(db, subjectKey, id),
    incomingQuery(db, subjectKey, id),
  ]);
  return toLinks(outgoing, incoming);
}

/** Edges read at most per call of itemEdges. */
const MAX_EDGES = 1000;

/** The resolved links with an end among `ids`, both ends visible to the viewer. */
export async function itemEdges(db: Db, subjectKey: string, ids: string[]): Promise<ItemEdge[]> {
  const valid = [...new Set(ids.filter(isUuid))];
  if (valid.length === 0) return [];
  const rows = await db
    .select({ fromId: itemLinks.fromItem, toId: itemLinks.toItem, kind: itemLinks.kind })
    .from(itemLinks)
    .innerJoin(self, and(eq(self.id, itemLinks.fromItem), visibleTo(subjectKey, self)))
    .innerJoin(other, and(eq(other.id, itemLinks.toItem), visibleTo(subjectKey, other)))
    .where(or(inArray(itemLinks.fromItem, valid), inArray(itemLinks.toItem, valid)))
    .limit(MAX_EDGES);
  return rows.flatMap((r) => (r.toId ? [{ fromId: r.fromId, toId: r.toId, kind: r.kind }] : []));
}

/** The people on the viewer's visible items (authors and participants), most frequent first. */
export async function topPeople(
  db: Db,
  subjectKey: string,
  options: { since?: Date; limit: number; changedSince?: Date },
): Promise<{ person: string; items: number }[]> {
  const conditions: SQL[] = [visibleTo(subjectKey)];
  if (options.since) conditions.push(gte(items.occurredAt, options.since));
  if (options.changedSince) conditions.push(gte(items.updatedAt, options.changedSince));
  const result = await db.execute<{ person: string; items: string | number }>(sql`
    with visible as (select ${items.id} as id, ${items.author} as author, ${items.participants} as participants
                     from ${items} where ${and(...conditions)}),
         people as (select id, author as person from visible where author is not null
                    union all select id, unnest(participants) from visible)
    select min(person) as person, count(distinct id) as items
    from people
    where btrim(person) <> '' and lower(btrim(person)) <> lower(${localName(subjectKey)})
    group by lower(btrim(person))
    order by count(distinct id) desc, lower(btrim(person))
    limit ${Math.max(1, Math.min(options.limit, 100))}`);
  return result.rows.map((row) => ({ person: row.person, items: Number(row.items) }));
}

/**
 * What changed since `since`, by ingestion time: new items (created since) and updated ones (created
 * before, changed since) by kind, the busiest threads (metadata.threadId, else the title without
 * "Re:"/"Fwd:" prefixes).
 */
export async function digest(
  db: Db,
  subjectKey: string,
  since: Date,
): Promise<Omit<ActivityDigest, "topPeople">> {
  const changed = and(visibleTo(subjectKey), gte(items.updatedAt, since));
  // Inlined (an ISO string we formatted) so the select and GROUP BY expressions are identical.
  const isNew = sql<boolean>`(${items.createdAt} >= ${sql.raw(`'${since.toISOString()}'`)}::timestamptz)`;
  const thread = sql<string>`coalesce(${items.metadata}->>'threadId', regexp_replace(lower(btrim(${items.title})), '^((re|fwd?|aw|sv)\\s*:\\s*)+', ''))`;
  const [byKind, threads] = await db.batch([
    db
      .select({ kind: items.kind, isNew, count: sql<number>`count(*)::int` })
      .from(items)
      .where(changed)
      .groupBy(items.kind, isNew),
    db
      .select({
        title: sql<string>`min(coalesce(${items.title}, ${items.metadata}->>'threadId'))`,
        count: sql<number>`count(*)::int`,
      })
      .from(items)
      .where(and(changed, isNotNull(thread)))
      .groupBy(thread)
      .orderBy(desc(sql`count(*)`), thread)
      .limit(DIGEST_THREADS),
  ]);
  const newByKind: ActivityDigest["newByKind"] = {};
  const updatedByKind: ActivityDigest["updatedByKind"] = {};
  for (const row of byKind) {
    const target = row.isNew ? newByKind : updatedByKind;
    target[row.kind] = (target[row.kind] ?? 0) + Number(row.count);
  }
  return {
    since,
    newByKind,
    updatedByKind,
    busiestThreads: threads.map((t) => ({ title: t.title, items: Number(t.count) })),
  };
}

const other = aliasedTable(items, "other");
const self = aliasedTable(items, "self");
const otherSummary = {
  id: other.id,
  kind: other.kind,
  source: other.source,
  externalId: other.externalId,
  title: other.title,
  author: other.author,
  occurredAt: other.occurredAt,
  linkKind: itemLinks.kind,
};

/**
 * What the item links to, as the viewer sees it: the link's own target when the viewer may see it, else the
 * viewer's own item of that source and external id (a link in an item shared by a colleague names the
 * colleague's copy of, say, a pull request; the viewer's own copy of it is the same thing to them).
 */
function outgoingQuery(db: Db, subjectKey: string, id: string) {
  return db
    .select({ ...otherSummary, stored: sql<boolean>`${other.id} = ${itemLinks.toItem}` })
    .from(itemLinks)
    .innerJoin(self, and(eq(self.id, itemLinks.fromItem), visibleTo(subjectKey, self)))
    .innerJoin(
      other,
      and(
        or(
          eq(other.id, itemLinks.toItem),
          and(
            eq(other.ownerId, subjectKey),
            eq(other.source, itemLinks.targetSource),
            eq(other.externalId, itemLinks.targetExternalId),
          ),
        ),
        visibleTo(subjectKey, other),
      ),
    )
    .where(eq(itemLinks.fromItem, id))
    .orderBy(desc(other.occurredAt))
    .limit(MAX_LINKS);
}

function incomingQuery(db: Db, subjectKey: string, id: string) {
  return db
    .select(otherSummary)
    .from(itemLinks)
    .innerJoin(self, and(eq(self.id, itemLinks.toItem), visibleTo(subjectKey, self)))
    .innerJoin(other, and(eq(other.id, itemLinks.fromItem), visibleTo(subjectKey, other)))
    .where(eq(itemLinks.toItem, id))
    .orderBy(desc(other.occurredAt))
    .limit(MAX_LINKS);
}

type LinkRow = Awaited<ReturnType<ReturnType<typeof incomingQuery>["execute"]>>[number];

function toLinks(outgoing: (LinkRow & { stored: unknown })[], incoming: LinkRow[]): ItemLink[] {
  const toLink =
    (direction: ItemLink["direction"]) =>
    ({ linkKind, ...item }: LinkRow): ItemLink => ({
      direction,
      kind: linkKind,
      item: toSummary({ ...item, occurredAt: toDate(item.occurredAt) }),
    });
  // A link whose own target the viewer sees and who has a copy of it too: the link's own target only.
  const byTarget = new Map<string, LinkRow & { stored: unknown }>();
  for (const row of outgoing) {
    const key = JSON.stringify([row.linkKind, row.source, row.externalId]);
    const seen = byTarget.get(key);
    if (!seen || (isTrue(row.stored) && !isTrue(seen.stored))) byTarget.set(key, row);
  }
  const resolved = outgoing.filter(
    (row) => byTarget.get(JSON.stringify([row.linkKind, row.source, row.externalId])) === row,
  );
  return [
    ...resolved.map(({ stored: _stored, ...row }) => toLink("outgoing")(row)),
    ...incoming.map(toLink("incoming")),
  ];
}

/** A boolean as the driver returns it (PGlite: true; Neon over HTTP may say "t"). */
const isTrue = (value: unknown) => value === true || value === "t" || value === "true";
