/** Opaque keyset cursors for search pages: base64url of the last row's sort key. */
import { AppError } from "../domain/errors";
import { isStorableInstant } from "../domain/instants";
import { isUuid } from "../domain/memory";
import { fromBase64Url, toBase64Url } from "./base64url";

export interface SearchCursor {
  /** ts_rank_cd of the last row when the search has a query; absent when ordered by time only. */
  rank?: number;
  occurredAt: Date;
  id: string;
  /** Ranked searches: the oldest candidate the first page ranked; later pages rank every match since. */
  floor?: Date;
}

export function encodeCursor(cursor: SearchCursor): string {
  const json = JSON.stringify({
    r: cursor.rank,
    t: cursor.occurredAt.toISOString(),
    i: cursor.id,
    f: cursor.floor?.toISOString(),
  });
  return toBase64Url(json);
}

/** Decodes a cursor made by encodeCursor for the same kind of search (ranked or not); 400 otherwise. */
export function decodeCursor(text: string, ranked: boolean): SearchCursor {
  const invalid = () => new AppError("bad_request", "cursor is not valid for this search");
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(text));
  } catch {
    throw invalid();
  }
  const { r, t, i, f } = (parsed ?? {}) as { r?: unknown; t?: unknown; i?: unknown; f?: unknown };
  const occurredAt = instant(t);
  if (!isStorableInstant(occurredAt) || typeof i !== "string" || !isUuid(i)) throw invalid();
  if (ranked !== isRank(r)) throw invalid();
  if (!ranked) {
    if (f !== undefined) throw invalid();
    return { occurredAt, id: i };
  }
  if (f === undefined) return { rank: r as number, occurredAt, id: i };
  const floor = instant(f);
  if (!isStorableInstant(floor) || floor > occurredAt) throw invalid();
  return { rank: r as number, occurredAt, id: i, floor };
}

const instant = (value: unknown): Date =>
  typeof value === "string" ? new Date(value) : new Date(Number.NaN);

/** A value ts_rank_cd can produce and Postgres' `real` can hold (no overflow, no underflow). */
const isRank = (r: unknown): r is number => typeof r === "number" && (r === 0 || (r >= 1e-30 && r <= 1e30));
