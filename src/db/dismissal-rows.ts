/** Reading dismissals (the runs ledger and the dismissal store both need them). */
import { sql } from "drizzle-orm";
import type { Dismissal } from "../domain/statements";
import type { Citation } from "../memory/memory-reader";
import { citationsOf, parseCitations } from "./citation-rows";
import type { Db } from "./client";
import { toDate } from "./item-rows";
import { parseJson } from "./sql-values";

/** Dismissals a run is told about at most (the newest); older ones still drop restatements. */
export const MAX_DISMISSALS = 1000;

interface Row {
  id: string;
  seq: number | string;
  statementId: string;
  section: string;
  text: string;
  itemIds: string[] | string;
  reason: string | null;
  at: string;
  citations?: unknown;
}

/** The subject's dismissals, newest first, with their seq (and the citations' metadata when asked). */
export async function readDismissals(
  db: Db,
  subjectKey: string,
  options: { citations?: boolean } = {},
): Promise<(Dismissal & { seq: number; citations: Citation[] })[]> {
  const citations = options.citations
    ? sql`, ${citationsOf(sql`d.cited_item_ids`, sql`d.subject_id`)} as citations`
    : sql``;
  const found = await db.execute(sql`
    select d.id, d.seq, d.statement_id as "statementId", d.section, d.text,
           to_json(d.cited_item_ids) as "itemIds", d.reason, d.created_at as at ${citations}
    from memory_dismissals d where d.subject_id = ${subjectKey}
    order by d.seq desc limit ${MAX_DISMISSALS}`);
  return (found.rows as unknown as Row[]).map((r) => ({
    id: String(r.id),
    seq: Number(r.seq),
    statementId: r.statementId,
    section: r.section,
    text: r.text,
    itemIds: (parseJson(r.itemIds) as string[] | null) ?? [],
    reason: r.reason,
    at: toDate(r.at),
    citations: options.citations ? parseCitations(r.citations) : [],
  }));
}
