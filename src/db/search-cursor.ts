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

/**
 * A search with a vector channel pages over one fixed candidate set: the items of the first page's instant
 * (`at`; later pages leave out what was written since) fused by reciprocal rank, ordered by (score, time,
 * id). `channels` says which channels made it, so a cursor is refused by a search of another mode.
 */
export interface FusedCursor {
  channels: "kv" | "v";
  score: number;
  occurredAt: Date;
  id: string;
  at: Date;
}

export function encodeFusedCursor(cursor: FusedCursor): string {
  return toBase64Url(
    JSON.stringify({
      c: cursor.channels,
      s: cursor.score,
      t: cursor.occurredAt.toISOString(),
      i: cursor.id,
      a: cursor.at.toISOString(),
    }),
  );
}

export function decodeFusedCursor(text: string, channels: FusedCursor["channels"]): FusedCursor {
  const invalid = () => new AppError("bad_request", "cursor is not valid for this search");
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(text));
  } catch {
    throw invalid();
  }
  const { c, s, t, i, a } = (parsed ?? {}) as Record<string, unknown>;
  const occurredAt = instant(t);
  const at = instant(a);
  if (
    c !== channels ||
    typeof s !== "number" ||
    !Number.isFinite(s) ||
    s < 0 ||
    s > 1 ||
    !isStorableInstant(occurredAt) ||
    !isStorableInstant(at) ||
    typeof i !== "string" ||
    !isUuid(i)
  ) {
    throw invalid();
  }
  return { channels, score: s, occurredAt, id: i, at };
}
