/** The composition root: builds every service once per request (or per alarm / cron invocation). */
import { type Config, configFor } from "./config/config";
import { createDb, type Db } from "./db/client";
import { createItemStore } from "./db/item-store";
import { createMemoryEvents } from "./db/memory-events";
import { type Clock, systemClock } from "./domain/clock";
import type { ItemStore } from "./domain/items";
import type { MemoryEvents } from "./domain/memory-events";
import type { Env } from "./env";

export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  memoryEvents: MemoryEvents;
  items: ItemStore;
}

export function buildServices(env: Env, _ctx?: ExecutionContext): Services {
  const config = configFor(env);
  const db = createDb(config);
  const clock = systemClock;
  return { config, db, clock, memoryEvents: createMemoryEvents(db, clock), items: createItemStore(db) };
}
