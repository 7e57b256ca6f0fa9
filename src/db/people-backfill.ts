/**
 * The people of items stored before people evidence existed (items.people_pending, drizzle/0020): read a
 * bounded batch of them, derive what each says about people as a write would (peopleColumnsOf over its
 * author and participants), and store it in one statement that also clears the mark. Only items still
 * pending and without people get them: an item rewritten meanwhile carries its own (the upsert clears the
 * mark and locks the row, which this statement waits for and then skips), and one that already has people
 * (its structured people, stored nowhere else) keeps them and only loses the mark.
 */
import { asc, sql } from "drizzle-orm";
import type { Db } from "./client";
import { peopleColumnsOf } from "./item-people-writes";
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
  const rows = pending.map((item) => {
    const people = peopleColumnsOf(item);
    return { i: item.id, s: people.sightings, l: people.personLinks, k: people.peopleKeys };
  });
  // An item that already has people (written with structured people, before the mark existed) keeps them.
  const result = await db.execute(sql`
    with todo as (
      select i.id, (i.sightings = '[]'::jsonb and i.person_links = '[]'::jsonb) as fresh from items i
      where i.id = any(${sql.param(pending.map((p) => p.id))}::uuid[]) and i.people_pending
      for update of i
    )
    update items set people_pending = false,
      sightings = case when todo.fresh then d.s else items.sightings end,
      person_links = case when todo.fresh then d.l else items.person_links end,
      people_keys = case when todo.fresh then array(select jsonb_array_elements_text(d.k)) else items.people_keys end
    from todo join jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as d(i uuid, s jsonb, l jsonb, k jsonb) on d.i = todo.id
    where items.id = todo.id
    returning todo.fresh as derived`);
  const updated = result.rows as { derived: boolean }[];
  return { scanned: pending.length, derived: updated.filter((r) => r.derived).length };
}
