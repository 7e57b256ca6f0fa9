/**
 * The people of the items an upsert writes: each item's identifier sightings and hard links (domain/people
 * sightingsOf), replaced in the upsert's transaction by two statements for the whole batch, whatever its
 * size: one delete of the written items' old rows (only when the batch updates items), one multi-row insert.
 *
 * A speaker label is scoped to its item (`speaker:<item id>#<label>`), and a new item's id is only known
 * once it is inserted: sightings are derived with ITEM_PLACEHOLDER as the item's id, and the insert puts the
 * row's id in its place.
 */
import { sql } from "drizzle-orm";
import type { ItemInput } from "../domain/item-schema";
import type { ItemPeopleInput } from "../domain/people/model";
import { sightingsOf } from "../domain/people/sightings";
import type { Db } from "./client";

const ITEM_PLACEHOLDER = "{item}";
const SPEAKER_PREFIX = `speaker:${ITEM_PLACEHOLDER}#`;

export interface ItemPeopleRows {
  sightings: { k: string; r: string; n: string | null; b: boolean }[];
  links: { a: string; b: string }[];
}

/** What one item's input says about people, as rows (deduplicated by what the tables' keys hold). */
export function itemPeopleRows(input: ItemInput): ItemPeopleRows {
  return peopleRowsOf({
    id: ITEM_PLACEHOLDER,
    source: input.source,
    author: input.author ?? null,
    participants: input.participants ?? [],
    people: input.people,
  });
}

/** What an item says about people, as rows of item_people and item_person_links (one row per key). */
export function peopleRowsOf(item: ItemPeopleInput): ItemPeopleRows {
  const { sightings, hardLinks } = sightingsOf(item);
  const seen = new Set<string>();
  const rows: ItemPeopleRows["sightings"] = [];
  for (const s of sightings) {
    const key = `${s.key}\u0001${s.role}`;
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push({ k: s.key, r: s.role, n: s.name, b: s.bot === true });
  }
  const linkKeys = new Set<string>();
  const links: ItemPeopleRows["links"] = [];
  for (const l of hardLinks) {
    if (l.a === l.b || linkKeys.has(`${l.a}\u0001${l.b}`)) continue;
    linkKeys.add(`${l.a}\u0001${l.b}`);
    links.push({ a: l.a, b: l.b });
  }
  return { sightings: rows, links };
}

interface Batch {
  row: { source: string; externalId: string };
  people: () => ItemPeopleRows;
}

/** The item's id in place of the placeholder in a speaker key (SQL over the column `expr`). */
const scoped = (expr: string, id: string) =>
  sql.raw(
    `case when ${expr} like '${SPEAKER_PREFIX}%' then 'speaker:' || ${id}::text || '#' || substr(${expr}, ${
      SPEAKER_PREFIX.length + 1
    }) else ${expr} end`,
  );

/** The rows of `batch`'s items written in this transaction: their old people go (before the insert). */
export function deletePeopleStatement(db: Db, subjectKey: string, batch: Batch[]) {
  const written = writtenItems(subjectKey, batch);
  return db.execute(sql`
    with w as (${written}),
    gone as (delete from item_person_links where item_id in (select id from w))
    delete from item_people where item_id in (select id from w)`);
}

/** One insert of every written item's sightings and hard links; null when the batch names nobody. */
export function insertPeopleStatement(db: Db, subjectKey: string, batch: Batch[]) {
  const sightings = batch.flatMap((p) =>
    p.people().sightings.map((s) => ({ s: p.row.source, e: p.row.externalId, ...s })),
  );
  const links = batch.flatMap((p) =>
    p.people().links.map((l) => ({ s: p.row.source, e: p.row.externalId, ...l })),
  );
  if (sightings.length === 0 && links.length === 0) return null;
  const written = writtenItems(subjectKey, batch);
  const insertLinks = sql`
    insert into item_person_links (item_id, a, b)
    select w.id, ${scoped("l.a", "w.id")}, ${scoped("l.b", "w.id")}
    from jsonb_to_recordset(${JSON.stringify(links)}::jsonb) as l(s text, e text, a text, b text)
    join w on w.source = l.s and w.external_id = l.e
    on conflict do nothing`;
  const insertSightings = sql`
    insert into item_people (item_id, identifier, role, name, bot)
    select w.id, ${scoped("p.k", "w.id")}, p.r, p.n, p.b
    from jsonb_to_recordset(${JSON.stringify(sightings)}::jsonb) as p(s text, e text, k text, r text, n text, b boolean)
    join w on w.source = p.s and w.external_id = p.e
    on conflict do nothing`;
  if (links.length === 0) return db.execute(sql`with w as (${written}) ${insertSightings}`);
  if (sightings.length === 0) return db.execute(sql`with w as (${written}) ${insertLinks}`);
  return db.execute(sql`with w as (${written}), linked as (${insertLinks}) ${insertSightings}`);
}

/** The batch's items this transaction wrote (inserted or changed), by their keys. */
function writtenItems(subjectKey: string, batch: Batch[]) {
  const sources = batch.map((p) => p.row.source);
  const externalIds = batch.map((p) => p.row.externalId);
  return sql`select i.id, i.source, i.external_id from items i
    where i.owner_id = ${subjectKey} and i.xmin = pg_current_xact_id()::xid
      and (i.source, i.external_id) in (select * from unnest(${sql.param(sources)}::text[], ${sql.param(externalIds)}::text[]))`;
}
