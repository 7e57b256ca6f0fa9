import { type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { keywordQuery } from "../src/db/keyword-query";
import { keywordRanked, keywordStatistics } from "../src/db/keyword-ranking";
import { items } from "../src/db/schema";

const client = new pg.Client({ connectionString: process.env.DB });
await client.connect();
const db = drizzle(client) as any;
const q = process.argv[2]!;
const person = process.argv[3];
const subject = "bench-user";
const kq = keywordQuery(q);
const t0 = performance.now();
const stats = await keywordStatistics(db, subject, kq);
console.log("stats", JSON.stringify(stats), (performance.now() - t0).toFixed(1), "ms");
const filters: SQL[] = [];
if (person) filters.push(sql`items_people(${items.author}, ${items.participants}) ilike ${`%${person}%`}`);
const statement = sql`explain (analyze, buffers) with c as (${keywordRanked(subject, kq, stats, filters)})
  select c.id, c.score from c order by c.score desc limit 21`;
await db.execute(sql`set jit = off`);
const r = await db.execute(statement);
console.log(r.rows.map((x: any) => x["QUERY PLAN"]).join("\n"));
await client.end();
