/**
 * The people of items stored before people evidence existed (items.people_pending, drizzle/0020): read a
 * bounded batch of them, derive what each says about people as a write would (peopleRowsOf over its author
 * and participants), and store it in one statement that also clears the mark. Only items still pending
 * and without people rows get them: an item rewritten meanwhile carries its own (the upsert clears the
 * mark and locks the row, which this statement waits for and then skips), and one written since people
 * evidence existed, before the mark did, keeps what its write stored (its structured people included).
 * A mark is only cleared on an item this statement derives or that has people rows already: one left out
 * for another reason (a concurrent change) keeps it for the next run.
 */
import { asc, sql } from "drizzle-orm";
import type { Db } from "./client";
import { peopleRowsOf } from "./item-people-writes";
import { items } from "./schema";

export async function backfillPeopleBatch(
  db: Db,
  limit: number,
): Promise<{ scanned: number; derived: number }> {
  const pending = await db
    .select({ id: items.id, source: items.source, author: items.author, participants: items.participants })
    .from(items)
    .where(sql`${items.peoplePending}`)
    .orderBy(asc(items.id))
    .limit(limit);
  if (pending.length === 0) return { scanned: 0, derived: 0 };
  const sightings: { i: string; k: string; r: string; n: string | null; b: boolean }[] = [];
  const links: { i: string; a: string; b: string }[] = [];
  for (const item of pending) {
    const rows = peopleRowsOf({
      id: item.id,
      source: item.source,
      author: item.author,
      participants: item.participants,
    });
    for (const s of rows.sightings) sightings.push({ i: item.id, ...s });
    for (const l of rows.links) links.push({ i: item.id, ...l });
  }
  const ids = pending.map((p) => p.id);
  const result = await db.execute(sql`
    with todo as (
      select i.id from items i
      where i.id = any(${sql.param(ids)}::uuid[]) and i.people_pending
        and not exists (select 1 from item_people p where p.item_id = i.id)
        and not exists (select 1 from item_person_links l where l.item_id = i.id)
      for update of i
    ),
    linked as (
      insert into item_person_links (item_id, a, b)
      select l.i::uuid, l.a, l.b from jsonb_to_recordset(${JSON.stringify(links)}::jsonb) as l(i text, a text, b text)
      where l.i::uuid in (select id from todo)
      on conflict do nothing
    ),
    seen as (
      insert into item_people (item_id, identifier, role, name, bot)
      select p.i::uuid, p.k, p.r, p.n, p.b
      from jsonb_to_recordset(${JSON.stringify(sightings)}::jsonb) as p(i text, k text, r text, n text, b boolean)
      where p.i::uuid in (select id from todo)
      on conflict do nothing
    )
    update items set people_pending = false
    where id = any(${sql.param(ids)}::uuid[]) and people_pending
      and (id in (select id from todo)
        or exists (select 1 from item_people p where p.item_id = items.id)
        or exists (select 1 from item_person_links l where l.item_id = items.id))
    returning (id in (select id from todo)) as derived`);
  const rows = result.rows as { derived: boolean }[];
  return { scanned: pending.length, derived: rows.filter((r) => r.derived).length };
}
