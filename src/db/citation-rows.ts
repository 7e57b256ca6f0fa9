/** The cited items' metadata as served (kind, title, date), read with the access rule of the viewer. */
import { type SQL, sql } from "drizzle-orm";
import type { ItemKind } from "../domain/item-schema";
import type { Citation } from "../memory/memory-reader";
import { principalsOf } from "./item-rows";
import { parseJson } from "./sql-values";

/**
 * The cited items' metadata, in citation order ([n] is position n); null fields for gone or hidden items.
 * `citedIds` is a uuid[] expression, `viewer` the subject key expression of whoever reads them.
 */
export function citationsOf(
  citedIds: SQL | SQL.Aliased | { getSQL(): SQL },
  viewer: SQL | { getSQL(): SQL },
) {
  return sql<unknown>`coalesce((
    select json_agg(json_build_object('id', c.id, 'kind', i.kind, 'title', i.title, 'occurredAt', i.occurred_at) order by c.n)
    from unnest(${citedIds}) with ordinality as c(id, n)
    left join items i on i.id = c.id and (i.owner_id = ${viewer} or i.shared_with && ${principalsOf(sql`${viewer}`)})
  ), '[]'::json)`;
}

export function parseCitations(value: unknown): Citation[] {
  const list = parseJson(value);
  if (!Array.isArray(list)) return [];
  return list.map(
    (c: { id: string; kind: ItemKind | null; title: string | null; occurredAt: string | null }) => ({
      id: c.id,
      kind: c.kind ?? null,
      title: c.title ?? null,
      occurredAt: c.occurredAt ? new Date(c.occurredAt).toISOString() : null,
    }),
  );
}
