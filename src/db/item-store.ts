/** ItemStore over Postgres (drizzle, Neon HTTP mode). The access rule is enforced in SQL by every read. */
import type { ItemStore } from "../domain/items";
import type { Db } from "./client";
import { digest, getItem, getManyItems, linkedItems, recentItems, topPeople } from "./item-reads";
import { searchItems } from "./item-search";
import { upsertItems } from "./item-upsert";

export function createItemStore(db: Db): ItemStore {
  return {
    upsert: (ownerId, inputs) => upsertItems(db, ownerId, inputs),
    search: (viewerId, query) => searchItems(db, viewerId, query),
    get: (viewerId, id) => getItem(db, viewerId, id),
    getMany: (viewerId, ids) => getManyItems(db, viewerId, ids),
    recent: (viewerId, options) => recentItems(db, viewerId, options),
    linked: (viewerId, id) => linkedItems(db, viewerId, id),
    topPeople: (viewerId, options) => topPeople(db, viewerId, options),
    digest: (viewerId, since) => digest(db, viewerId, since),
  };
}
