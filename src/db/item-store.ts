/** ItemStore over Postgres (drizzle, Neon HTTP mode). The access rule is enforced in SQL by every read. */
import type { ItemStore } from "../domain/items";
import type { Db } from "./client";
import { digest, getItem, getManyItems, itemEdges, linkedItems, recentItems, topPeople } from "./item-reads";
import { searchItems } from "./item-search";
import { upsertItems } from "./item-upsert";

export function createItemStore(db: Db): ItemStore {
  return {
    upsert: (subjectKey, inputs) => upsertItems(db, subjectKey, inputs),
    search: (subjectKey, query) => searchItems(db, subjectKey, query),
    get: (subjectKey, id) => getItem(db, subjectKey, id),
    getMany: (subjectKey, ids) => getManyItems(db, subjectKey, ids),
    recent: (subjectKey, options) => recentItems(db, subjectKey, options),
    linked: (subjectKey, id) => linkedItems(db, subjectKey, id),
    edgesOf: (subjectKey, ids) => itemEdges(db, subjectKey, ids),
    topPeople: (subjectKey, options) => topPeople(db, subjectKey, options),
    digest: (subjectKey, since) => digest(db, subjectKey, since),
  };
}
