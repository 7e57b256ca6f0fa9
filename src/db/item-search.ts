/**
 * Full-text search over what a viewer may see. With a query: `websearch_to_tsquery('english', q)` against
 * the generated `search` column (title weighted A, author B, body C), ranked by `ts_rank_cd`, then newest
 * first. Without one: newest first. Keyset pagination on (rank, occurred_at, id), so pages never skip or
 * repeat rows that existed when the first page was read.
 */
import { and, desc, gte, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import type { SearchHit, SearchPage, SearchQuery } from "../domain/items";
import type { Db } from "./client";
import { summaryColumns, toSummary, visibleTo } from "./item-rows";
import { items } from "./schema";
import { decodeCursor, encodeCursor } from "./search-cursor";

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
const SNIPPET_CHARS = 240;
/** ts_headline parses the whole text it is given: bound it. */
const HEADLINE_SOURCE_CHARS = 20_000;

export async function searchItems(db: Db, viewerId: string, query: SearchQuery): Promise<SearchPage> {
  const limit = clampLimit(query.limit);
  const q = query.q?.trim() || undefined;
  const tsquery = q ? sql`websearch_to_tsquery('english', ${q})` : undefined;
  const rank = tsquery ? sql<number>`ts_rank_cd(${items.search}, ${tsquery})` : sql<number>`0::real`;
  const cursor = query.cursor ? decodeCursor(query.cursor, tsquery !== undefined) : undefined;

  const conditions: (SQL | undefined)[] = [visibleTo(viewerId)];
  if (tsquery) conditions.push(sql`${items.search} @@ ${tsquery}`);
  if (query.kinds?.length) conditions.push(inArray(items.kind, query.kinds));
  if (query.since) conditions.push(gte(items.occurredAt, query.since));
  if (query.until) conditions.push(lt(items.occurredAt, query.until));
  if (query.people?.length) conditions.push(or(...query.people.map(involves)));
  if (cursor) {
    const at = cursor.occurredAt.toISOString();
    conditions.push(
      cursor.rank !== undefined
        ? sql`(${rank}, ${items.occurredAt}, ${items.id}) < (${cursor.rank}::real, ${at}::timestamptz, ${cursor.id}::uuid)`
        : sql`(${items.occurredAt}, ${items.id}) < (${at}::timestamptz, ${cursor.id}::uuid)`,
    );
  }

  const snippet = tsquery
    ? sql<string>`ts_headline('english', left(${items.body}, ${HEADLINE_SOURCE_CHARS}), ${tsquery}, 'MaxFragments=1, MaxWords=35, MinWords=15, StartSel="", StopSel=""')`
    : sql<string>`left(${items.body}, ${SNIPPET_CHARS})`;

  const rows = await db
    .select({ ...summaryColumns, rank, snippet })
    .from(items)
    .where(and(...conditions))
    .orderBy(...(tsquery ? [desc(rank)] : []), desc(items.occurredAt), desc(items.id))
    .limit(limit + 1);

  const page = rows.slice(0, limit).map(
    (row): SearchHit => ({
      ...toSummary(row),
      rank: Number(row.rank),
      snippet: boundSnippet(row.snippet),
    }),
  );
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? encodeCursor({
          ...(tsquery ? { rank: last.rank } : {}),
          occurredAt: last.occurredAt,
          id: last.id,
        })
      : null;
  return { items: page, nextCursor };
}

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return SEARCH_DEFAULT_LIMIT;
  return Math.min(SEARCH_MAX_LIMIT, Math.max(1, Math.trunc(limit)));
}

/** The person is the author or a participant: case-insensitive substring, so "alice" finds "Alice <alice@x>". */
function involves(person: string): SQL {
  const pattern = `%${person.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  return sql`(${items.author} ilike ${pattern} or exists (select 1 from unnest(${items.participants}) as p(name) where p.name ilike ${pattern}))`;
}

function boundSnippet(text: string): string {
  const clean = text.replace(/\s+/g, " ").trim();
  return clean.length > SNIPPET_CHARS ? `${clean.slice(0, SNIPPET_CHARS - 1)}…` : clean;
}
