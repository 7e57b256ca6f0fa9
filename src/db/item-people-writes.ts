/**
 * What an item says about people, as the columns of its row (items.sightings, person_links, people_keys;
 * drizzle/0022): its identifier sightings and hard links (domain/people sightingsOf), deduplicated, and the
 * sightings' distinct keys. They are written in the item's own insert or update, so a batch of items costs
 * no statement more and a deleted item takes them with it.
 *
 * A speaker label is scoped to its item (`speaker:<item id>#<label>`), and a new item's id is only known
 * once it is inserted: its key is stored with ITEM_PLACEHOLDER in place of the id (`speaker:{item}#<label>`),
 * and reads put the row's id in its place (`scopedKey`).
 */
import { type SQL, sql } from "drizzle-orm";
import type { ItemInput } from "../domain/item-schema";
import type { ItemPeopleInput } from "../domain/people/model";
import { sightingsOf } from "../domain/people/sightings";
import type { StoredPersonLink, StoredSighting } from "./schema";

const ITEM_PLACEHOLDER = "{item}";
const SPEAKER_PREFIX = `speaker:${ITEM_PLACEHOLDER}#`;

/** The people columns of an item's row. */
export interface PeopleColumns {
  sightings: StoredSighting[];
  personLinks: StoredPersonLink[];
  peopleKeys: string[];
}

/** The people columns of the row an item input is written as. */
export function itemPeopleColumns(input: ItemInput): PeopleColumns {
  return peopleColumnsOf({
    source: input.source,
    author: input.author ?? null,
    participants: input.participants ?? [],
    people: input.people,
  });
}

/** The people columns of an item (one sighting per key and role, one link per pair). */
export function peopleColumnsOf(item: Omit<ItemPeopleInput, "id">): PeopleColumns {
  const { sightings, hardLinks } = sightingsOf({ ...item, id: ITEM_PLACEHOLDER });
  const seen = new Set<string>();
  const rows: StoredSighting[] = [];
  for (const s of sightings) {
    const key = `${s.key}\u0001${s.role}`;
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push({ k: s.key, r: s.role, n: s.name, b: s.bot === true });
  }
  const linkKeys = new Set<string>();
  const links: StoredPersonLink[] = [];
  for (const l of hardLinks) {
    if (l.a === l.b || linkKeys.has(`${l.a}\u0001${l.b}`)) continue;
    linkKeys.add(`${l.a}\u0001${l.b}`);
    links.push({ a: l.a, b: l.b });
  }
  return { sightings: rows, personLinks: links, peopleKeys: [...new Set(rows.map((r) => r.k))] };
}

/** A stored key as the item `id` names it (SQL over the text `key`, the uuid `id`). */
export function scopedKey(key: SQL, id: SQL): SQL {
  return sql`case when ${key} like ${`${SPEAKER_PREFIX}%`} then 'speaker:' || ${id}::text || '#' || substr(${key}, ${
    SPEAKER_PREFIX.length + 1
  }::int) else ${key} end`;
}

const SPEAKER_KEY = /^speaker:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})#/i;

/**
 * The person filter's keys as stored: a speaker key names one item (its id); any other key is stored as
 * it is.
 */
export function storedKeys(keys: string[]): { keys: string[]; speakerItems: string[] } {
  const plain: string[] = [];
  const speakerItems = new Set<string>();
  for (const key of keys) {
    const speaker = SPEAKER_KEY.exec(key);
    if (speaker) speakerItems.add(speaker[1]!.toLowerCase());
    else if (!key.startsWith("speaker:")) plain.push(key);
  }
  return { keys: plain, speakerItems: [...speakerItems] };
}
