/**
 * Full-text search over what a viewer may see. With a query: `websearch_to_tsquery('english', q)` against
 * the generated `search` column (title weighted A, author B, body C), ranked by `ts_rank_cd`, then newest
 * first. Without one: newest first. Keyset pagination on (rank, occurred_at, id), so pages never skip or
 * repeat rows that existed when the first page was read.
 *
 * Every query reads the two branches of the access rule (item-rows.ts visibleBranches) separately, newest
 * first and limited, and merges them: the viewer's own items through (owner_id, occurred_at, id), items
 * shared with them through the shared_with index. So a page costs what the viewer's own data costs, however
 * many other users the table holds (one index over everyone's items, walked backwards, would step over
 * every other user's recent rows).
 *
 * Ranking reads the tsvector of every row it ranks, so a query matching tens of thousands of items would
 * cost hundreds of milliseconds. A ranked search therefore ranks at most RANK_CANDIDATES matches: the most
 * recent ones (a query matching fewer is ranked whole). The first page's cursor carries the oldest
 * candidate's instant (its floor), and later pages rank every match at or after it, so items that arrive
 * in between never push a candidate of the first page out.
 */
import { and, desc, gte, inArray, lt, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type PgSelect, unionAll } from "drizzle-orm/pg-core";
import type { SearchHit, SearchPage, SearchQuery } from "../domain/items";
import { PAGE_LIMIT } from "../domain/pages";
import type { Db } from "./client";
import { summaryColumns, toDate, toSummary, visibleBranches } from "./item-rows";
import { items } from "./schema";
import { decodeCursor, encodeCursor } from "./search-cursor";

/** A ranked search ranks at most this many matches, the most recent (see above). */
export const RANK_CANDIDATES = 200;
const SNIPPET_CHARS = 240;
/**
 * ts_headline parses all the text it is given (about 0.13 µs a character here), and the best-ranked hits
 * tend to be long documents: 21 of them at 20,000 characters took 55 ms. So it gets this much of the body,
 * starting HEADLINE_LEAD_CHARS before the first occurrence of one of the query's lexemes in the body's
 * first HEADLINE_PROBE_CHARS (a lowercase substring search; stems are mostly prefixes of the words they
 * come from), else the body's beginning.
 */
const HEADLINE_SOURCE_CHARS = 2_000;
const HEADLINE_LEAD_CHARS = 300;
const HEADLINE_PROBE_CHARS = 50_000;
/**
 * Joins an item's author and participants in `items_people(author, participants)`, the expression the
 * trigram index `items_people_trgm_idx` covers (see drizzle/0007). A name without it matches the joined
 * text exactly when it matches the author or one participant.
 */
const PEOPLE_SEPARATOR = "\n";

export async function searchItems(db: Db, subjectKey: string, query: SearchQuery): Promise<SearchPage> {
  const limit = clampLimit(query.limit);
  const q = query.q?.trim() || undefined;
  const filters: (SQL | undefined)[] = [];
  if (query.kinds?.length) filters.push(inArray(items.kind, query.kinds));
  if (query.since) filters.push(gte(items.occurredAt, query.since));
  if (query.until) filters.push(lt(items.occurredAt, query.until));
  if (query.people?.length) filters.push(or(...query.people.map(involves)));
  return q
    ? rankedSearch(db, subjectKey, q, filters, limit, query.cursor)
    : newestFirst(db, subjectKey, filters, limit, query.cursor);
}

const candidateColumns = { ...summaryColumns, body: items.body, search: items.search };

/**
 * The rows passing `conditions` that the viewer may see, each access branch read newest first (at most
 * `newest` of each when given), as one union; the caller orders and limits the merge.
 */
function visibleRows(db: Db, subjectKey: string, conditions: (SQL | undefined)[], newest?: number) {
  const [owned, shared] = visibleBranches(subjectKey);
  // Fenced by OFFSET 0, the shared branch finds its rows by the shared_with index alone and checks the
  // filters on them. Unfenced, the planner may AND that index with a filter's index (text, people) over
  // every user's items: 20-70 ms for a common word or name at 400,000 rows, to find a few hundred shared
  // rows. Fenced, the cost follows the rows shared with the viewer (about 4-8 ms for 1,000).
  const fence = sql`0` as unknown as number; // drizzle leaves out a literal OFFSET 0
  const sharedRows = db.select().from(items).where(shared).offset(fence).as("items");
  const newestOf = <Q extends PgSelect>(rows: Q) =>
    newest === undefined ? rows : rows.orderBy(desc(items.occurredAt), desc(items.id)).limit(newest);
  return unionAll(
    newestOf(
      db
        .select(candidateColumns)
        .from(items)
        .where(and(owned, ...conditions))
        .$dynamic(),
    ),
    newestOf(
      db
        .select(candidateColumns)
        .from(sharedRows)
        .where(and(...conditions))
        .$dynamic(),
    ),
  );
}

/** Matches of `q`, best first: the most recent RANK_CANDIDATES (or those since the cursor's floor), ranked. */
async function rankedSearch(
  db: Db,
  subjectKey: string,
  q: string,
  filters: (SQL | undefined)[],
  limit: number,
  cursorText: string | undefined,
): Promise<SearchPage> {
  const tsquery = sql`websearch_to_tsquery('english', ${q})`;
  const cursor = cursorText ? decodeCursor(cursorText, true) : undefined;
  const conditions = [...filters, sql`${items.search} @@ ${tsquery}`];
  if (cursor?.floor) conditions.push(gte(items.occurredAt, cursor.floor));
  // The first page ranks the most recent matches; later pages every match since the first page's floor.
  const newest = cursor?.floor ? undefined : RANK_CANDIDATES;
  const m = visibleRows(db, subjectKey, conditions, newest).as("m");
  const candidates = db.select().from(m).$dynamic();
  const c = (
    newest === undefined ? candidates : candidates.orderBy(desc(m.occurredAt), desc(m.id)).limit(newest)
  ).as("c");
  const ranked = db
    .select({
      id: c.id,
      kind: c.kind,
      source: c.source,
      externalId: c.externalId,
      title: c.title,
      author: c.author,
      occurredAt: c.occurredAt,
      body: c.body,
      rank: sql<number>`ts_rank_cd(${c.search}, ${tsquery})`.as("rank"),
      floor: sql<Date | string>`min(${c.occurredAt}) over ()`.as("floor"),
    })
    .from(c)
    .as("r");

  const after = cursor
    ? sql`(${ranked.rank}, ${ranked.occurredAt}, ${ranked.id}) < (${cursor.rank}::real, ${cursor.occurredAt.toISOString()}::timestamptz, ${cursor.id}::uuid)`
    : undefined;
  const rows = await db
    .select({
      id: ranked.id,
      kind: ranked.kind,
      source: ranked.source,
      externalId: ranked.externalId,
      title: ranked.title,
      author: ranked.author,
      occurredAt: ranked.occurredAt,
      rank: ranked.rank,
      floor: ranked.floor,
      snippet: sql<string>`ts_headline('english', ${headlineSource(ranked.body, tsquery)}, ${tsquery}, 'MaxFragments=1, MaxWords=35, MinWords=15, StartSel="", StopSel=""')`,
    })
    .from(ranked)
    .where(after)
    .orderBy(desc(ranked.rank), desc(ranked.occurredAt), desc(ranked.id))
    .limit(limit + 1);

  const page = rows.slice(0, limit).map(
    ({ floor: _floor, ...row }): SearchHit => ({
      ...toSummary(row),
      rank: Number(row.rank),
      snippet: boundSnippet(row.snippet),
    }),
  );
  const last = page.at(-1);
  const floor = cursor?.floor ?? (rows[0] ? toDate(rows[0].floor) : undefined);
  const nextCursor =
    rows.length > limit && last
      ? encodeCursor({ rank: last.rank, occurredAt: last.occurredAt, id: last.id, floor })
      : null;
  return { items: page, nextCursor };
}

/** Everything that passes the filters, newest first; the snippet is cut from the page's rows only. */
async function newestFirst(
  db: Db,
  subjectKey: string,
  filters: (SQL | undefined)[],
  limit: number,
  cursorText: string | undefined,
): Promise<SearchPage> {
  const cursor = cursorText ? decodeCursor(cursorText, false) : undefined;
  const conditions = [...filters];
  if (cursor) {
    conditions.push(
      sql`(${items.occurredAt}, ${items.id}) < (${cursor.occurredAt.toISOString()}::timestamptz, ${cursor.id}::uuid)`,
    );
  }
  const m = visibleRows(db, subjectKey, conditions, limit + 1).as("m");
  const rows = await db
    .select({
      id: m.id,
      kind: m.kind,
      source: m.source,
      externalId: m.externalId,
      title: m.title,
      author: m.author,
      occurredAt: m.occurredAt,
      snippet: sql<string>`left(${m.body}, ${SNIPPET_CHARS})`,
    })
    .from(m)
    .orderBy(desc(m.occurredAt), desc(m.id))
    .limit(limit + 1);

  const page = rows
    .slice(0, limit)
    .map((row): SearchHit => ({ ...toSummary(row), rank: 0, snippet: boundSnippet(row.snippet) }));
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last ? encodeCursor({ occurredAt: last.occurredAt, id: last.id }) : null;
  return { items: page, nextCursor };
}

/**
 * The part of `body` ts_headline reads (see HEADLINE_SOURCE_CHARS). querytree() lists the query's positive
 * lexemes, quoted; lexemes under three letters are too common to place the window.
 */
function headlineSource(body: SQLWrapper, tsquery: SQL): SQL {
  const firstMatch = sql`(select min(nullif(strpos(lower(left(${body}, ${HEADLINE_PROBE_CHARS})), m[1]), 0))
    from regexp_matches(querytree(${tsquery}), '''((?:[^'']|'''')+)''', 'g') as m where length(m[1]) >= 3)`;
  return sql`substr(${body}, greatest(1, coalesce(${firstMatch}, 1) - ${HEADLINE_LEAD_CHARS}), ${HEADLINE_SOURCE_CHARS})`;
}

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return PAGE_LIMIT.default;
  return Math.min(PAGE_LIMIT.max, Math.max(1, Math.trunc(limit)));
}

/**
 * The person is the author or a participant: case-insensitive substring, so "alice" finds "Alice <alice@x>".
 * Tested on the joined names, which the trigram index serves; a name containing the separator could match
 * across two names there, so it is also tested name by name.
 */
function involves(person: string): SQL {
  const pattern = `%${person.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  const joined = sql`items_people(${items.author}, ${items.participants}) ilike ${pattern}`;
  if (!person.includes(PEOPLE_SEPARATOR)) return joined;
  return sql`(${joined} and (${items.author} ilike ${pattern} or exists (select 1 from unnest(${items.participants}) as p(name) where p.name ilike ${pattern})))`;
}

function boundSnippet(text: string): string {
  const clean = text.replace(/\s+/g, " ").trim();
  return clean.length > SNIPPET_CHARS ? `${clean.slice(0, SNIPPET_CHARS - 1)}…` : clean;
}
